// Namespace strategy (pkg/registry/core/namespace): a new namespace is Active and carries the
// "kubernetes" finalizer, which the namespace controller removes once the namespace is empty.
//
// Unlike kube-apiserver, spec.finalizers may be changed by a plain update: this server has no
// namespaces/<name>/finalize subresource, so that is how the finalizer is released.
import { FINALIZER_KUBERNETES, type Namespace } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { validateNamespace } from "./validation.ts";

export const namespaceStrategy: Strategy<Namespace> = {
  prepareForCreate(_ctx, ns) {
    ns.status = { phase: "Active" };
    const spec = asRecord(ns.spec) ?? {};
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
    ns.spec = { ...spec, finalizers: finalizers as string[] };
  },
  validate: (_ctx, ns) => validateNamespace(ns),
  validateUpdate: (_ctx, ns) => validateNamespace(ns),
  validateStatusUpdate: () => [],
};
