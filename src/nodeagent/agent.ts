// The node agent (docs/maintenance-and-rotation.md#the-node-agent): registers its Node, watches its pool's OSC Secret
// in the shoot's kube-system through the controller runtime (one apply at a time, the latest version
// wins, 410/dropped watches handled by the informer), applies the SSH parts, keeps sshd in the desired
// state and reports the applied checksum on its Node.
import { hostname as osHostname, networkInterfaces } from "node:os";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { LABEL_ROLE, LABEL_WORKER_POOL, OSC_NAMESPACE, ROLE_OSC } from "../api/gardencore/osc.ts";
import { Secrets } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { newControllerManagedBy } from "../controllerruntime/builder.ts";
import { Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import type { Clock } from "../utils/clock.ts";
import { OSCApplier } from "./apply.ts";
import { under } from "./files.ts";
import { readHostKeys } from "./hostkeys.ts";
import { Kubelet } from "./kubelet/kubelet.ts";
import type { PodRuntime } from "./kubelet/runtime/runtime.ts";
import { newPodRuntime } from "./kubelet/setup.ts";
import { registerNode } from "./node.ts";
import { type SshdEnsurer, systemctlSshd } from "./sshd.ts";
import { type UserManager, fixedUserManager, systemUserManager } from "./users.ts";

export const FULL_RESYNC_MS = 10 * 60 * 1000;
export const SSHD_CHECK_MS = 15 * 1000;

export interface NodeAgentOptions {
  /** A client of the shoot's API server. */
  client: Client;
  nodeName: string;
  pool: string;
  /** Where the machine's "/" is; default "/". */
  root?: string;
  /** The OSC Secret to follow; default: the newest Secret labelled for the pool. */
  secretName?: string;
  /** Machine path of the `ssh_host_*_key.pub` files; default /etc/ssh. */
  hostKeyDir?: string;
  /** Default: useradd on root "/", this process's identity elsewhere. */
  users?: UserManager;
  /** Default: systemctl. */
  sshd?: SshdEnsurer;
  /** Default: the first non-internal IPv4 address of the interfaces. */
  internalIP?: string;
  /** Default: os.hostname(). */
  hostname?: string;
  clock?: Clock;
  logger?: Logger;
  fullResyncMs?: number;
  sshdCheckMs?: number;
  server?: ManagerOptions["server"];
  registry?: Registry;
  defaultMetrics?: boolean;
  /** Run pods bound to this node (docs/kubelet.md); off when undefined. */
  kubelet?: KubeletAgentOptions;
}

export interface KubeletAgentOptions {
  /** The node's pod range (spec.podCIDR), e.g. "10.96.1.0/24". */
  podCIDR?: string;
  /** The pod runtime's state directory (pods, containers, host records). */
  stateDir: string;
  /** The cluster's API server as pods reach it. */
  apiServer?: { host: string; port: number };
  /** Another runtime than the PodRuntime on this machine (tests hand in one that only has the kubelet's methods). */
  runtime?: PodRuntime;
  relistMs?: number;
  volumeResyncMs?: number;
}

export interface NodeAgent {
  manager: Manager;
  applier: OSCApplier;
  /** The kubelet (with --kubelet): `kubelet.podByName` and `kubelet.runtime` serve the kubelet server. */
  kubelet?: Kubelet;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The first non-internal IPv4 address of this machine's interfaces. */
export function interfaceIPv4(): string | undefined {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

export function createNodeAgent(o: NodeAgentOptions): NodeAgent {
  if (!o.nodeName) throw new Error("node agent: the node name must not be empty");
  if (!o.pool) throw new Error("node agent: the pool must not be empty");
  const root = o.root ?? "/";
  const restrict = o.secretName ? { fieldSelector: `metadata.name=${o.secretName}` } : { labelSelector: `${LABEL_ROLE}=${ROLE_OSC},${LABEL_WORKER_POOL}=${o.pool}` };
  const manager = new Manager({
    client: o.client,
    clock: o.clock,
    logger: o.logger?.child({ node: o.nodeName, pool: o.pool }),
    server: o.server,
    registry: o.registry,
    defaultMetrics: o.defaultMetrics,
    cache: { byObject: [{ type: Secrets, namespace: OSC_NAMESPACE, ...restrict }] },
  });
  const sshd = o.sshd ?? systemctlSshd();
  const register = async (signal?: AbortSignal) =>
    registerNode(
      o.client,
      { name: o.nodeName, pool: o.pool, hostname: o.hostname ?? osHostname(), internalIP: o.internalIP ?? interfaceIPv4(), hostKeys: await readHostKeys(under(root, o.hostKeyDir ?? "/etc/ssh")) },
      signal,
    );
  const applier = new OSCApplier({
    client: o.client,
    cache: manager.cache,
    nodeName: o.nodeName,
    pool: o.pool,
    secretName: o.secretName,
    root,
    users: o.users ?? (root === "/" ? systemUserManager() : fixedUserManager()),
    sshd,
    register,
    fullResyncMs: o.fullResyncMs ?? FULL_RESYNC_MS,
  });
  // Every Secret event maps to one key: applies never overlap and the latest version wins.
  newControllerManagedBy(manager)
    .named("operatingsystemconfig")
    .for(Secrets)
    .withOptions({ maxConcurrentReconciles: 1 })
    .complete((_req, rc) => applier.reconcile(rc));
  manager.add({
    start: (signal) => {
      const every = o.sshdCheckMs ?? SSHD_CHECK_MS;
      const tick = (): void => {
        if (signal.aborted) return;
        void applier.checkSshd().finally(() => {
          if (!signal.aborted) timer = manager.clock.setTimer(every, tick);
        });
      };
      let timer = manager.clock.setTimer(every, tick);
      signal.addEventListener("abort", () => timer.cancel(), { once: true });
    },
  });
  let kubelet: Kubelet | undefined;
  if (o.kubelet) {
    const k = o.kubelet;
    kubelet = new Kubelet({
      client: o.client,
      cache: manager.cache,
      runtime: k.runtime ?? newPodRuntime({ stateDir: k.stateDir, podCIDR: k.podCIDR, apiServer: k.apiServer }),
      nodeName: o.nodeName,
      hostname: o.hostname ?? osHostname(),
      internalIP: o.internalIP ?? interfaceIPv4(),
      ...(k.podCIDR ? { podCIDR: k.podCIDR } : {}),
      clock: manager.clock,
      ...(o.logger ? { logger: o.logger.child({ node: o.nodeName, component: "kubelet" }) } : {}),
      ...(k.relistMs !== undefined ? { relistMs: k.relistMs } : {}),
      ...(k.volumeResyncMs !== undefined ? { volumeResyncMs: k.volumeResyncMs } : {}),
    });
    manager.add(kubelet);
  }
  let stopped: Promise<void> | undefined;
  return {
    manager,
    applier,
    ...(kubelet ? { kubelet } : {}),
    async start() {
      await register();
      await manager.start();
    },
    stop() {
      stopped ??= manager.stop();
      return stopped;
    },
  };
}
