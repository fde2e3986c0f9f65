// Admission plugin `PodSecurity` (k8s.io/pod-security-admission): the namespace's labels
// pod-security.kubernetes.io/enforce|warn|audit (and their -version) choose a level: privileged
// (the default), baseline or restricted. Enforce refuses a violating pod with 403 `violates
// PodSecurity "<level>:<version>": …`; warn adds a `Warning`. Decided on pod creation and on updates
// that change a container image, from the stored namespace. An unknown level counts as restricted.
import type { Pod } from "../../../apis/core/v1/pod.ts";
import { newForbidden } from "../../../apimachinery/errors.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.ts";
import { describe, evaluate, type Level } from "./checks.ts";
import { NAMESPACES, PODS } from "../../registry/core/resources.ts";

export const LABEL_PREFIX = "pod-security.kubernetes.io/";
const LEVELS: Level[] = ["privileged", "baseline", "restricted"];

export interface Policy {
  level: Level;
  version: string;
}

/** The policy of one mode from the namespace labels; undefined when the mode is not set. */
export function policyOf(labels: Record<string, string> | undefined, mode: "enforce" | "warn" | "audit"): Policy | undefined {
  const level = labels?.[`${LABEL_PREFIX}${mode}`];
  if (level === undefined) return undefined;
  const version = labels?.[`${LABEL_PREFIX}${mode}-version`] || "latest";
  return { level: (LEVELS as string[]).includes(level) ? (level as Level) : "restricted", version: /^(latest|v1\.\d{1,3})$/.test(version) ? version : "latest" };
}

function images(pod: Pod | undefined): string {
  const s = pod?.spec;
  return JSON.stringify([s?.initContainers, s?.containers, s?.ephemeralContainers].map((l) => (Array.isArray(l) ? l.map((c) => c?.image) : [])));
}

export class PodSecurityAdmission implements AdmissionPlugin {
  readonly name = "PodSecurity";

  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (attrs.resource.group !== "" || attrs.resource.plural !== "pods" || attrs.subresource !== "" || !attrs.object) return;
    return this.validatePod(attrs, client);
  }

  private async validatePod(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE") return;
    const pod = attrs.object as Pod;
    if (attrs.operation === "UPDATE" && images(pod) === images(attrs.oldObject as Pod | undefined)) return;
    const ns = await client.get(NAMESPACES, undefined, attrs.namespace ?? "");
    const labels = ns?.metadata.labels;
    const enforce = policyOf(labels, "enforce");
    const warn = policyOf(labels, "warn");
    if (enforce) {
      const violations = evaluate(enforce.level, pod);
      if (violations.length) throw newForbidden(PODS, attrs.name, `violates PodSecurity "${enforce.level}:${enforce.version}": ${describe(violations)}`);
    }
    if (warn && attrs.warnings) {
      const violations = evaluate(warn.level, pod);
      if (violations.length) attrs.warnings.push(`would violate PodSecurity "${warn.level}:${warn.version}": ${describe(violations)}`);
    }
  }
}
