// The Node as the kubelet writes it (pkg/kubelet/nodestatus): addresses, daemon endpoint, node info,
// capacity and allocatable, and the four conditions with the kubelet's reasons and messages. Pure: the
// machine facts come in as NodeFacts (machine.ts reads them).
import type { Node, NodeCondition, NodeStatus } from "../../apis/core/v1/types.ts";

export const KUBELET_PORT = 10250;
export const KUBELET_VERSION = "v1.30.0-gardener-access";
export const MAX_PODS = 110;
/** The kubelet's default hard eviction threshold memory.available<100Mi, taken off allocatable. */
const EVICTION_MEMORY_KI = 100 * 1024;

export interface NodeFacts {
  hostname: string;
  internalIP?: string;
  cpus: number;
  memoryKi: number;
  ephemeralStorageKi: number;
  machineID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  architecture: string;
}

/** What the node observes about itself; every pressure is false on these machines unless told. */
export interface NodeHealth {
  ready: boolean;
  notReadyMessage?: string;
  memoryPressure?: boolean;
  diskPressure?: boolean;
  pidPressure?: boolean;
}

type Cond = Omit<NodeCondition, "lastHeartbeatTime" | "lastTransitionTime">;

export function nodeConditions(h: NodeHealth): Cond[] {
  return [
    h.memoryPressure
      ? { type: "MemoryPressure", status: "True", reason: "KubeletHasInsufficientMemory", message: "kubelet has insufficient memory available" }
      : { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available" },
    h.diskPressure
      ? { type: "DiskPressure", status: "True", reason: "KubeletHasDiskPressure", message: "kubelet has disk pressure" }
      : { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure" },
    h.pidPressure
      ? { type: "PIDPressure", status: "True", reason: "KubeletHasInsufficientPID", message: "kubelet has insufficient PID available" }
      : { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available" },
    h.ready
      ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }
      : { type: "Ready", status: "False", reason: "KubeletNotReady", message: h.notReadyMessage ?? "kubelet is not ready" },
  ];
}

/** Heartbeat now; lastTransitionTime kept while the status stays. Conditions of others are kept. */
export function mergeNodeConditions(old: NodeCondition[] | undefined, mine: Cond[], nowIso: string): NodeCondition[] {
  const out: NodeCondition[] = mine.map((c) => {
    const prev = old?.find((o) => o.type === c.type);
    return { ...c, lastHeartbeatTime: nowIso, lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : nowIso };
  });
  for (const o of old ?? []) if (!mine.some((c) => c.type === o.type)) out.push(o);
  return out;
}

export function nodeStatus(facts: NodeFacts, health: NodeHealth, old: Node | undefined, nowIso: string): NodeStatus {
  const capacity = {
    cpu: String(facts.cpus),
    memory: `${facts.memoryKi}Ki`,
    "ephemeral-storage": `${facts.ephemeralStorageKi}Ki`,
    "hugepages-2Mi": "0",
    pods: String(MAX_PODS),
  };
  const allocatable = { ...capacity, memory: `${Math.max(0, facts.memoryKi - EVICTION_MEMORY_KI)}Ki`, "ephemeral-storage": `${Math.floor(facts.ephemeralStorageKi * 0.9)}Ki` };
  return {
    capacity,
    allocatable,
    conditions: mergeNodeConditions(old?.status?.conditions, nodeConditions(health), nowIso),
    addresses: [...(facts.internalIP ? [{ type: "InternalIP", address: facts.internalIP }] : []), { type: "Hostname", address: facts.hostname }],
    daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
    nodeInfo: {
      machineID: facts.machineID,
      systemUUID: facts.machineID,
      bootID: facts.bootID,
      kernelVersion: facts.kernelVersion,
      osImage: facts.osImage,
      containerRuntimeVersion: "toolbox://0.1.0",
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: facts.architecture,
    },
  };
}

/** Whether a freshly computed status differs from the stored one in more than heartbeat times. */
export function nodeStatusChanged(old: NodeStatus | undefined, next: NodeStatus): boolean {
  const strip = (s: NodeStatus | undefined) => JSON.stringify({ ...s, conditions: s?.conditions?.map((c) => ({ ...c, lastHeartbeatTime: undefined })) });
  const pick = (s: NodeStatus | undefined): NodeStatus | undefined => s && { capacity: s.capacity, allocatable: s.allocatable, conditions: s.conditions, addresses: s.addresses, daemonEndpoints: s.daemonEndpoints, nodeInfo: s.nodeInfo };
  return strip(pick(old)) !== strip(pick(next));
}
