// The supervisor process of a landscape (`gardener-local up` starts it detached): cleans up what a
// crashed run left, builds the networks, starts the components under a Supervisor, creates the
// objects, kubeconfigs and worker machines, reports progress in logs/supervisor.log and the phase in
// status.json, then keeps the components running until SIGTERM.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_CHECKSUM_DATA_SCRIPT, ANNOTATION_SSH_HOST_KEYS, LABEL_ROLE, LABEL_WORKER_POOL, OSC_NAMESPACE, ROLE_OSC, oscSecretNameOf } from "../api/gardencore/osc.ts";
import { SEEDS_GROUP } from "../apis/gardencore/v1beta1/types.ts";
import { seedUserName } from "../api/gardencore/identity.ts";
import { issueClientCertificate } from "../apiserver/certs/issue.ts";
import { writeKubeconfig } from "../apiserver/certs/kubeconfig.ts";
import { Namespaces, Secrets } from "../client/builtins.ts";
import { Client } from "../client/client.ts";
import { LinuxHost } from "../host/index.ts";
import { Nodes } from "../nodeagent/node.ts";
import { FileAddressBook } from "../provider-local/network/addresses.ts";
import { DEFAULT_NODE_CIDR, LocalNetworks } from "../provider-local/network/networks.ts";
import * as c from "./components.ts";
import { clusterOf, workerBootstrapKubeconfig } from "./nodetokens.ts";
import { type Layout, type Ports, killRecorded, MEMBER_USER, PROJECT_NAMESPACE, SEED_NODE_CIDR, SEED_NODE_NETWORK, SEED_POD_CIDR, SEED_WORKERS, SHOOT, SHOOT_POD_CIDR, SHOOT_TECHNICAL_ID, WORKER_POOL, WORKERS } from "./layout.ts";
import { kubeletTlsOf, servingKubelets } from "./kubelets.ts";
import { readyNodes, schedulerRunning, startClusterNodes } from "./nodes.ts";
import { applySeedCRDs, createGardenObjects, createShoot, publishShootKubeconfig } from "./objects.ts";
import { writeStatus, type LandscapeStatus } from "./status.ts";
import { Supervisor } from "./supervisor.ts";
import { parsePositiveDuration } from "../utils/duration.ts";
import { writeGardenctlConfig } from "./gardenctl.ts";

export interface RunOptions {
  layout: Layout;
  ports: Ports;
  prefix: string;
  /** The public network (provider-local's default when unset). */
  publicCidr?: string;
  log: (line: string) => void;
  /** The garden API server's `--bastion-time-to-live`; defaults to $GARDENER_LOCAL_BASTION_TIME_TO_LIVE (set by `up`). */
  bastionTimeToLive?: string;
  /** The seed's and shoot's `--node-monitor-grace-period`; defaults to $GARDENER_LOCAL_NODE_MONITOR_GRACE_PERIOD (set by `up`). */
  nodeMonitorGracePeriod?: string;
}

/** Shared by the run and its failure path: the phase a failure sets stays. */
type Status = LandscapeStatus;

/** Polls `fn` every 250 ms until it returns a value (errors count as "not yet"); throws after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The host's end of the public network (a veth from the host namespace to the public bridge). */
export async function attachHost(networks: LocalNetworks): Promise<string> {
  const p = await networks.ensurePublic();
  const address = await networks.allocatePublic("host");
  const { host } = networks;
  await host.ensureVeth({
    name: host.names.link("host"), addresses: [`${address}/${p.prefixLength}`],
    peer: { name: host.names.link("hp"), netns: p.netns, master: p.bridge }, owner: "landscape/host",
  });
  return address;
}

export async function runLandscape(o: RunOptions, status: Status, onStop: (stop: (reason: string) => void) => void): Promise<void> {
  const { layout, log } = o;
  for (const d of [layout.logs, layout.run, layout.providerState]) mkdirSync(d, { recursive: true });
  const report = (): void => writeStatus(layout, status);
  report();

  killRecorded(layout, ["supervisor.pid"]);
  const host = new LinuxHost({ stateDir: layout.hostState, prefix: o.prefix });
  const leftovers = await host.removeAll();
  if (leftovers.removed.length > 0) log(`removed ${leftovers.removed.length} host objects left by an earlier run`);
  // Every address belonged to a host object just removed: an earlier run's allocations are stale.
  rmSync(join(layout.providerState, "addresses.json"), { force: true });
  const networks = new LocalNetworks({ host, addresses: new FileAddressBook(join(layout.providerState, "addresses.json")), ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}) });
  const hostAddress = await attachHost(networks);
  log(`host address on the public network: ${hostAddress}`);
  // The API servers reach the kubelets from this address (recorded before provider-local builds anything).
  for (const ns of [SHOOT_TECHNICAL_ID, SEED_NODE_NETWORK]) await networks.allowControlPlane(ns, hostAddress);
  const bastionTimeToLive = c.bastionTimeToLiveOf(o.bastionTimeToLive);
  const nodeMonitorGracePeriod = o.nodeMonitorGracePeriod || process.env[c.NODE_GRACE_ENV] || undefined;
  const sshKeypairPoolSize = process.env[c.SSH_KEYPAIR_POOL_SIZE_ENV] || undefined;
  const ctx: c.ComponentContext = {
    layout, ports: o.ports, hostAddress, prefix: o.prefix, ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}), ...(bastionTimeToLive ? { bastionTimeToLive } : {}),
    ...(nodeMonitorGracePeriod ? { nodeMonitorGracePeriod } : {}), ...(sshKeypairPoolSize ? { sshKeypairPoolSize } : {}),
  };
  if (bastionTimeToLive) log(`bastion time-to-live: ${bastionTimeToLive}`);

  // Tests that kill components on purpose shorten the restart backoff (default 30 s).
  const maxRestartBackoff = process.env[c.MAX_RESTART_BACKOFF_ENV];
  const supervisor = new Supervisor({ pidDir: layout.run, log, ...(maxRestartBackoff ? { maxBackoffMs: parsePositiveDuration(maxRestartBackoff) } : {}) });
  if (maxRestartBackoff) log(`restart backoff at most ${maxRestartBackoff}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping components`);
    const failed = status.phase === "Failed";
    if (!failed) status.phase = "Stopping";
    report();
    void supervisor.stop().finally(() => {
      if (!failed) status.phase = "Stopped";
      status.components = supervisor.status();
      report();
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  onStop(stop);
  const refresh = setInterval(() => {
    if (stopping) return;
    status.components = supervisor.status();
    void host.listMachines().then(
      (ms) => {
        status.machines = ms.map((m) => ({ name: m.name, state: m.failed ? "Failed" : m.ready ? "Ready" : m.running ? "Booting" : "Stopped", addresses: m.interfaces.map((i) => i.address) }));
        if (!stopping) report();
      },
      () => undefined,
    );
  }, 1000);
  refresh.unref();

  const adminOf = (name: "garden" | "seed" | "shoot"): string => join(layout.apiServerDir(name), "admin.kubeconfig");
  for (const start of [c.gardenApiServer, c.seedApiServer, c.shootApiServer]) supervisor.start(start(ctx));
  const clients: Record<string, Client> = {};
  for (const name of ["garden", "seed", "shoot"] as const) {
    clients[name] = await waitFor(`the ${name} API server`, async () => {
      const client = Client.fromKubeconfigFile(adminOf(name), { fieldManager: "gardener-local" });
      try {
        await client.list(Namespaces, { limit: 1 });
        return client;
      } catch (err) {
        client.close();
        throw err;
      }
    });
    log(`${name} API server ready`);
    // Beside each API server its scheduler (the API server wrote scheduler.kubeconfig before serving).
    supervisor.start(c.scheduler(ctx, name));
  }
  const garden = clients.garden!, seed = clients.seed!, shoot = clients.shoot!;

  copyFileSync(adminOf("garden"), layout.gardenKubeconfig);
  copyFileSync(adminOf("shoot"), layout.shootKubeconfig);
  const ca = { certPem: readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "utf8"), keyPem: readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.key"), "utf8") };
  const gardenUrl = `https://127.0.0.1:${o.ports.garden}`;
  const kubeconfig = async (path: string, user: string, groups: string[], namespace?: string): Promise<void> =>
    writeKubeconfig(path, { server: gardenUrl, caPem: ca.certPem, clusterName: "garden", userName: user, user: await issueClientCertificate(ca, { commonName: user, organizations: groups }), ...(namespace ? { namespace } : {}) });
  await kubeconfig(layout.gardenletKubeconfig, seedUserName("local"), [SEEDS_GROUP]);
  await kubeconfig(layout.memberKubeconfig, MEMBER_USER, [], PROJECT_NAMESPACE);
  writeGardenctlConfig(layout, networks.public.gateway);
  log("kubeconfigs written");

  await applySeedCRDs(seed);
  await createGardenObjects(garden);
  supervisor.start(c.controllerManager(ctx));
  await waitFor("project namespace garden-local", async () => ((await garden.get(Namespaces, { name: PROJECT_NAMESPACE })) ? true : undefined));
  log("project local ready");
  // Gardener's default node network: room for about a thousand machines (a bridge's ports) per shoot.
  // A shoot of an earlier run keeps the node network it has.
  const shootObject = await createShoot(garden, seed, DEFAULT_NODE_CIDR, SHOOT_POD_CIDR);
  const nodeCidr = shootObject.spec.networking?.nodes ?? DEFAULT_NODE_CIDR;
  await publishShootKubeconfig(garden, readFileSync(layout.shootKubeconfig, "utf8"));
  supervisor.start(c.gardenlet(ctx));
  supervisor.start(c.providerLocal(ctx));
  await networks.ensureNodeNetwork(SHOOT_TECHNICAL_ID, nodeCidr);
  log(`shoot local created; node network ${nodeCidr}`);

  // The machines are new (fresh host keys): Nodes of an earlier run must not count as registered.
  for (const cl of [shoot, seed]) for (const n of (await cl.list(Nodes)).items) await cl.delete(Nodes, { name: n.metadata.name! }).catch(() => undefined);
  // No shoot worker holds the admin kubeconfig: each gets a bootstrap token of its own (docs/node-bootstrap.md#the-local-landscape).
  const shootCluster = clusterOf(readFileSync(layout.shootKubeconfig, "utf8"));
  const pool = shootObject.spec.provider.workers?.find((x) => x.name === WORKER_POOL);
  if (!pool) throw new Error(`shoot ${SHOOT} has no worker pool ${WORKER_POOL}`);
  const secretName = oscSecretNameOf(shootObject, pool);
  await networks.ensureNodeNetwork(SEED_NODE_NETWORK, SEED_NODE_CIDR);
  const shootNodeName = (w: string): string => `${SHOOT_TECHNICAL_ID}-${WORKER_POOL}-${w}`;
  const seedNodeName = (w: string): string => `${SEED_NODE_NETWORK}-${WORKER_POOL}-${w}`;
  const seedKubeconfig = readFileSync(adminOf("seed"), "utf8");
  await Promise.all([
    startClusterNodes(networks, hostAddress, {
      namespace: SHOOT_TECHNICAL_ID, podCidr: shootObject.spec.networking?.pods ?? SHOOT_POD_CIDR, workers: WORKERS, nodeName: shootNodeName,
      credentials: async (nodeName) => ({ bootstrapKubeconfig: await workerBootstrapKubeconfig(shoot, { nodeName, cluster: shootCluster, nowMs: Date.now() }), secretName }),
    }, log),
    // The seed's worker (it will host operators' terminals): a schedulable Node of the seed cluster.
    startClusterNodes(networks, hostAddress, { namespace: SEED_NODE_NETWORK, podCidr: SEED_POD_CIDR, workers: SEED_WORKERS, nodeName: seedNodeName, credentials: () => Promise.resolve({ kubeconfig: seedKubeconfig }) }, log),
  ]);
  await waitFor(
    `${WORKERS.length} nodes registered with host keys`,
    async () => {
      const nodes = await shoot.list(Nodes);
      return nodes.items.filter((n) => n.metadata.annotations?.[ANNOTATION_SSH_HOST_KEYS]).length >= WORKERS.length ? true : undefined;
    },
    // The node agents start inside the machines (a TypeScript start-up each); generous on a busy 2-core host.
    180_000,
  );
  log(`${WORKERS.length} nodes registered`);
  // The README's next line is `gardenctl ssh`: it needs the garden copy of the node key pair and nodes that
  // accept that key (they report the checksum of the node configuration they applied).
  await waitFor(
    "the node key pair in the garden and applied by every node",
    async () => {
      await garden.get(Secrets, { namespace: PROJECT_NAMESPACE, name: `${SHOOT}.ssh-keypair` });
      const selector = `${LABEL_ROLE}=${ROLE_OSC},${LABEL_WORKER_POOL}=${WORKER_POOL}`;
      const configs = (await shoot.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: selector })).items;
      const latest = configs.map((s) => s.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT]).filter((x): x is string => x !== undefined);
      const nodes = (await shoot.list(Nodes)).items;
      const applied = nodes.filter((n) => latest.includes(n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] ?? ""));
      return latest.length > 0 && applied.length >= WORKERS.length ? true : undefined;
    },
    120_000,
  );
  log("node key pair applied by every node");
  // `kubectl run` works once the kubelets heartbeat and the schedulers run.
  await waitFor(
    "every node Ready with a renewed Lease, and the schedulers",
    async () => {
      const want = async (cl: Client, names: string[]): Promise<boolean> => (await readyNodes(cl, names)).length === names.length;
      if (!(await want(shoot, WORKERS.map(shootNodeName))) || !(await want(seed, SEED_WORKERS.map(seedNodeName)))) return undefined;
      for (const cl of [garden, seed, shoot]) if (!(await schedulerRunning(cl))) return undefined;
      return true;
    },
    120_000,
  );
  log("nodes Ready, schedulers running");
  // The user's next `kubectl exec` or `logs` goes through a worker's kubelet endpoint, served once the node
  // agent has its serving certificate (the seed's worker serves none yet).
  const kubeletTls = kubeletTlsOf(join(layout.apiServerDir("shoot"), "pki"));
  const shootNodes = WORKERS.map(shootNodeName);
  await waitFor("every shoot worker's kubelet endpoint (10250) answering the API server", async () => ((await servingKubelets(shoot, shootNodes, kubeletTls)).length === shootNodes.length ? true : undefined), 120_000);
  log("kubelet endpoints serving");
  for (const cl of [garden, seed, shoot]) cl.close();
  status.phase = "Ready";
  status.components = supervisor.status();
  report();
  log("landscape ready");
}

/** Entry point of the supervisor process: a failure is reported in status.json, then everything stops. */
export async function superviseMain(o: RunOptions): Promise<void> {
  writeFileSync(o.layout.supervisorPid, `${process.pid}\n`);
  const status: Status = { phase: "Starting", pid: process.pid, components: [], machines: [] };
  let stop: ((reason: string) => void) | undefined;
  try {
    await runLandscape(o, status, (s) => (stop = s));
  } catch (err) {
    o.log(`failed: ${(err as Error).message}`);
    status.phase = "Failed";
    status.error = (err as Error).message;
    writeStatus(o.layout, status);
    if (stop) stop("failure");
    else process.exit(1);
  }
}
