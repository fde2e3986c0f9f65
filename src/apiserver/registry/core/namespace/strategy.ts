// Namespace strategy (pkg/registry/core/namespace): a new namespace is Active and carries the
// "kubernetes" finalizer, which the namespace controller removes once the namespace is empty; its
// label kubernetes.io/metadata.name always holds its name.
//
// Unlike kube-apiserver, spec.finalizers may be changed by a plain update: this server has no
// namespaces/<name>/finalize subresource, so that is how the finalizer is released.
import { FINALIZER_KUBERNETES, type Namespace } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { validateNamespace } from "./validation.ts";

/** The label every namespace carries with its own name (kube 1.22+), set on create and update. */
export const LABEL_METADATA_NAME = "kubernetes.io/metadata.name";

function labelWithName(ns: Namespace): void {
  if (ns.metadata.name) ns.metadata.labels = { ...ns.metadata.labels, [LABEL_METADATA_NAME]: ns.metadata.name };
}

export const namespaceStrategy: Strategy<Namespace> = {
  prepareForCreate(_ctx, ns) {
    labelWithName(ns);
    ns.status = { phase: "Active" };
    const spec = asRecord(ns.spec) ?? {};
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
    ns.spec = { ...spec, finalizers: finalizers as string[] };
  },
  prepareForUpdate: (_ctx, ns) => labelWithName(ns),
  validate: (_ctx, ns) => validateNamespace(ns),
  validateUpdate: (_ctx, ns) => validateNamespace(ns),
  validateStatusUpdate: () => [],
};
