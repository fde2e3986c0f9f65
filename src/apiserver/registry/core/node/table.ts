// kubectl get nodes: NAME STATUS ROLES AGE VERSION, and with -o wide INTERNAL-IP EXTERNAL-IP
// OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME (pkg/printers/internalversion printNode).
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { asArray, asRecord, asString } from "../keys.ts";
import { ageCell, ageColumn, column } from "../printers.ts";

const ROLE_LABEL_PREFIX = "node-role.kubernetes.io/";
const ROLE_LABEL = "kubernetes.io/role";

/** "Ready" / "NotReady" from the Ready condition ("Unknown" without one), plus SchedulingDisabled. */
export function nodeStatusText(node: KubeObject): string {
  const status: string[] = [];
  const ready = asArray(asRecord(node.status)?.conditions)
    .map(asRecord)
    .filter((c) => c?.type === "Ready")
    .at(-1);
  if (ready) status.push(ready.status === "True" ? "Ready" : "NotReady");
  else status.push("Unknown");
  if (asRecord(node.spec)?.unschedulable === true) status.push("SchedulingDisabled");
  return status.join(",");
}

export function nodeRoles(node: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX) && k.length > ROLE_LABEL_PREFIX.length) roles.add(k.slice(ROLE_LABEL_PREFIX.length));
    else if (k === ROLE_LABEL && v) roles.add(v);
  }
  return [...roles].sort();
}

function address(node: KubeObject, type: string): string {
  const found = asArray(asRecord(node.status)?.addresses)
    .map(asRecord)
    .find((a) => a?.type === type);
  return asString(found?.address) || "<none>";
}

export const nodeTable: TableConvertor = {
  columns: [
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    ageColumn(),
    column("Version", "string", "Kubelet Version reported by the node."),
    column("Internal-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.", { priority: 1 }),
    column("External-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.", { priority: 1 }),
    column("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", { priority: 1 }),
    column("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", { priority: 1 }),
    column("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", { priority: 1 }),
  ],
  cells(node: KubeObject, now: Date): unknown[] {
    const info = asRecord(asRecord(node.status)?.nodeInfo) ?? {};
    const orUnknown = (v: unknown) => asString(v) || "<unknown>";
    return [
      nodeStatusText(node),
      nodeRoles(node).join(",") || "<none>",
      ageCell(node, now),
      asString(info.kubeletVersion),
      address(node, "InternalIP"),
      address(node, "ExternalIP"),
      orUnknown(info.osImage),
      orUnknown(info.kernelVersion),
      orUnknown(info.containerRuntimeVersion),
    ];
  },
};
