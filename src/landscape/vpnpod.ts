// The vpn-shoot Pod (docs/reversed-vpn.md#the-local-landscape, docs/adr/0014-vpn-shoot-pod-from-the-landscape.md):
// the landscape runs the vpn-shoot-client as processes in its own namespace on the shoot's node network, as a
// kubelet runs a static pod, and writes the Pod a kubelet would mirror for it into the shoot's kube-system:
// Gardener's labels (app=vpn-shoot, type=tunnel), hostNetwork on the client's node-network address, Running
// while its health process runs, Ready while its /healthz on 8080 answers (asked from the node network). The
// gardenlet's tunnel check finds it by its labels and asks that port through the shoot API server.
import type { Pod, PodCondition, PodStatus } from "../apis/core/v1/pod.ts";
import { VPN_SHOOT_HEALTH_PORT, VPN_SHOOT_LABELS, VPN_SHOOT_POD, SHOOT_NAMESPACE } from "../api/gardencore/vpnsecrets.ts";
import { Pods } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import type { Host } from "../host/index.ts";
import { unlessNotFound } from "../client/helpers.ts";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { metaTime } from "../utils/time.ts";

/** The Pod's node: no Node object, so neither the scheduler nor a node agent takes the Pod. */
export const VPN_SHOOT_NODE = "vpn-shoot-client";
export const POD_STATUS_INTERVAL_MS = 2000;
const CONTAINER = "vpn-shoot-client";

export interface VpnShootPodOptions {
  shoot: Client;
  /** The vpn-shoot-client's node-network address: the Pod's (and host's) IP. */
  address: string;
  /** Whether the health process runs now. */
  running(): Promise<boolean>;
  /** Whether its /healthz on 8080 answers 200, asked from the node network. */
  healthy(): Promise<boolean>;
  /** Restarts of its processes so far. */
  restarts(): number;
  clock?: Clock;
  intervalMs?: number;
  log?: (line: string) => void;
}

export function vpnShootPod(address: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: SHOOT_NAMESPACE, name: VPN_SHOOT_POD, labels: { ...VPN_SHOOT_LABELS, "gardener.cloud/role": "system-component" } },
    spec: {
      nodeName: VPN_SHOOT_NODE,
      hostNetwork: true,
      automountServiceAccountToken: false,
      containers: [{ name: CONTAINER, image: "vpn-shoot-client", ports: [{ name: "metrics", containerPort: VPN_SHOOT_HEALTH_PORT, protocol: "TCP" }] }],
    },
    status: { hostIP: address },
  };
}

/** The status a kubelet would report: phase from the processes, Ready from the probe, transitions kept. */
export function podStatus(o: { address: string; running: boolean; ready: boolean; restarts: number; nowIso: string; startTime: string; previous: PodStatus | undefined }): PodStatus {
  const cond = (type: string, ok: boolean): PodCondition => {
    const status = ok ? "True" : "False";
    const old = o.previous?.conditions?.find((c) => c.type === type);
    return { type, status, lastProbeTime: null, lastTransitionTime: old?.status === status ? (old.lastTransitionTime ?? o.nowIso) : o.nowIso };
  };
  const ready = o.running && o.ready;
  // As a kubelet with restartPolicy Always: once the processes ran, a restart keeps the Pod Running, not ready.
  const started = o.running || o.previous?.phase === "Running";
  return {
    phase: started ? "Running" : "Pending",
    conditions: [cond("Initialized", true), cond("Ready", ready), cond("ContainersReady", ready), cond("PodScheduled", true)],
    hostIP: o.address,
    hostIPs: [{ ip: o.address }],
    podIP: o.address,
    podIPs: [{ ip: o.address }],
    startTime: o.startTime,
    qosClass: "BestEffort",
    containerStatuses: [{
      name: CONTAINER, ready, started: o.running, restartCount: o.restarts, image: "vpn-shoot-client", imageID: "",
      state: o.running ? { running: { startedAt: o.startTime } } : { waiting: { reason: started ? "CrashLoopBackOff" : "ContainerCreating" } },
    }],
  };
}

const same = (a: PodStatus | undefined, b: PodStatus): boolean =>
  a?.phase === b.phase && a?.podIP === b.podIP && a?.containerStatuses?.[0]?.restartCount === b.containerStatuses?.[0]?.restartCount &&
  JSON.stringify(a?.conditions?.map((c) => [c.type, c.status])) === JSON.stringify(b.conditions?.map((c) => [c.type, c.status]));

/** Keeps the vpn-shoot Pod and its status, every 2 s (a write only when something changed). */
export class VpnShootPodWriter {
  private timer: Timer | undefined;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();
  private readonly clock: Clock;

  constructor(private readonly o: VpnShootPodOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Writes the Pod and its first status (a failure is logged and tried again); then keeps it until stop(). */
  async start(): Promise<void> {
    this.busy = this.sync().catch((err: unknown) => this.o.log?.(`vpn-shoot pod: ${(err as Error).message}`));
    await this.busy;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(this.o.intervalMs ?? POD_STATUS_INTERVAL_MS, () => {
      this.busy = this.sync().catch((err: unknown) => this.o.log?.(`vpn-shoot pod: ${(err as Error).message}`));
    });
  }

  /** One pass: the Pod exists (created again when it was deleted) and its status is current. */
  async sync(): Promise<void> {
    try {
      const key = { namespace: SHOOT_NAMESPACE, name: VPN_SHOOT_POD };
      const pod = (await unlessNotFound(this.o.shoot.get(Pods, key))) ?? (await this.o.shoot.create(Pods, vpnShootPod(this.o.address)));
      const [running, healthy] = await Promise.all([this.o.running(), this.o.healthy()]);
      const nowIso = metaTime(this.clock.nowMs());
      const status = podStatus({ address: this.o.address, running, ready: healthy, restarts: this.o.restarts(), nowIso, startTime: pod.status?.startTime ?? nowIso, previous: pod.status });
      if (!same(pod.status, status)) {
        await this.o.shoot.updateStatus(Pods, { ...pod, status });
        this.o.log?.(`vpn-shoot pod: ${status.phase}, ${status.conditions!.find((c) => c.type === "Ready")!.status === "True" ? "ready" : "not ready"}`);
      }
    } finally {
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.busy.catch(() => undefined);
  }
}

/**
 * The kubelet's probe of the vpn-shoot-client's health: `GET /healthz` on 8080 of its address, from inside its
 * namespace (the host has no route into the node network), within 2 s.
 */
export async function healthFromNetns(host: Host, netns: string, address: string): Promise<boolean> {
  const url = `http://${address}:${VPN_SHOOT_HEALTH_PORT}/healthz`;
  const r = await host.execInNetns(netns, "curl", ["-fsS", "-o", "/dev/null", "-m", "2", url], { timeoutMs: 5000, okExitCodes: [0, 7, 22, 28, 52, 56] }).catch(() => undefined);
  return r?.exitCode === 0;
}
