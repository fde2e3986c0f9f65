// What kube-apiserver's default admission plugins add to every new pod: `DefaultTolerationSeconds`
// (tolerate node.kubernetes.io/not-ready and /unreachable for 300 s with NoExecute unless the pod
// already tolerates them) and `Priority` without PriorityClasses (priority 0, preemption policy
// PreemptLowerPriority).
import type { Pod, Toleration } from "../../apis/core/v1/pod.ts";
import { isPodCreate } from "./serviceaccount.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";

export const DEFAULT_TOLERATION_SECONDS = 300;
const TAINTS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

function tolerates(tolerations: Toleration[], key: string): boolean {
  return tolerations.some((t) => (t.effect === "NoExecute" || !t.effect) && (!t.key ? t.operator === "Exists" : t.key === key));
}

export class PodDefaultsAdmission implements AdmissionPlugin {
  readonly name = "DefaultTolerationSeconds,Priority";

  admit(attrs: AdmissionAttributes): void {
    const spec = (attrs.object as Pod | undefined)?.spec;
    if (!isPodCreate(attrs) || !spec || typeof spec !== "object") return;
    const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
    const added = TAINTS.filter((key) => !tolerates(tolerations, key)).map(
      (key): Toleration => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: DEFAULT_TOLERATION_SECONDS }),
    );
    if (added.length) spec.tolerations = [...tolerations, ...added];
    if (spec.priority === undefined && !spec.priorityClassName) spec.priority = 0;
    spec.preemptionPolicy ??= "PreemptLowerPriority";
  }
}
