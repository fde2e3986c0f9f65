// NamespaceLifecycle (as kube-apiserver's plugin): no new objects in a namespace that does not
// exist or is being terminated, and the system namespaces cannot be deleted.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { newForbidden, newNotFound } from "../../apimachinery/errors.ts";
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";
import { NAMESPACES } from "../registry/core/resources.ts";
export { NAMESPACES };

/** Namespaces that can never be deleted. */
export const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];

export function isTerminating(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return Boolean(ns.metadata.deletionTimestamp) || phase === "Terminating";
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = "NamespaceLifecycle";

  async validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.operation === "DELETE" && isNamespaceResource(attrs) && IMMORTAL_NAMESPACES.includes(attrs.name)) {
      throw newForbidden(NAMESPACES, attrs.name, "this namespace may not be deleted");
    }
    if (attrs.operation !== "CREATE") return;
    if (!attrs.resource.namespaced || !attrs.namespace) return;
    // Create-only review kinds (e.g. LocalSubjectAccessReview) store nothing in the namespace.
    if (attrs.resource.virtualCreate) return;

    // Read-only: every create in the namespace shares one decoded copy of its stored version.
    // As kube-apiserver's plugin reads its informer: the watch cache's copy as it is, without a
    // round trip to etcd for the current revision on every create; a namespace the cache does not
    // have yet is looked up consistently.
    const ns =
      (await client.get(NAMESPACES, undefined, attrs.namespace, { readOnly: true, allowStale: true })) ??
      (await client.get(NAMESPACES, undefined, attrs.namespace, { readOnly: true }));
    if (!ns) throw newNotFound(NAMESPACES, attrs.namespace);
    if (isTerminating(ns)) {
      const err = newForbidden(
        { group: attrs.resource.group, resource: attrs.resource.plural },
        attrs.name,
        `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
      );
      if (err.details) err.details.causes = [{ reason: "NamespaceTerminating", message: `namespace ${attrs.namespace} is being terminated`, field: "metadata.namespace" }];
      throw err;
    }
  }
}

function isNamespaceResource(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === "" && attrs.resource.plural === "namespaces" && attrs.subresource === "";
}
