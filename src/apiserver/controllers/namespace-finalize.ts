// namespaces/finalize: PUT replaces spec.finalizers and nothing else. When the namespace is being
// deleted and no finalizer is left, the store deletes it. As in kube-apiserver, the subresource is
// a second store over the same storage whose update strategy copies only spec.finalizers.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { newBadRequest, newMethodNotSupported } from "../../apimachinery/errors.ts";
import type { ObjectStore, WriteOptions } from "../registry/generic/interface.ts";
import type { ResourceDefinition, Strategy, SubresourceHandler } from "../registry/types.ts";

/** The finalizer the namespace deletion controller owns. */
export const KUBERNETES_FINALIZER = "kubernetes";

function specFinalizers(obj: KubeObject): unknown {
  return (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
}

/** Update strategy of namespaces/finalize: the old object with spec.finalizers from the request. */
export function namespaceFinalizeStrategy(base: Strategy): Strategy {
  const strategy: Strategy = {
    prepareForUpdate: (_ctx, obj, old) => {
      const finalizers = specFinalizers(obj);
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, structuredClone(old));
      const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
      obj.spec = spec;
      if (finalizers === undefined || (Array.isArray(finalizers) && finalizers.length === 0)) delete spec.finalizers;
      else spec.finalizers = finalizers;
    },
    allowUnconditionalUpdate: true,
  };
  if (base.validateUpdate) strategy.validateUpdate = base.validateUpdate;
  return strategy;
}

export function namespaceFinalizeSubresource(finalizeStore: ObjectStore): SubresourceHandler {
  return {
    verbs: ["update"],
    responseKind: { group: "", version: "v1", kind: "Namespace" },
    async handle(req) {
      if (req.verb !== "update") throw newMethodNotSupported({ group: "", resource: "namespaces/finalize" }, req.verb);
      if (typeof req.body !== "object" || req.body === null) throw newBadRequest("the body of a namespaces/finalize request must be a Namespace");
      const options: WriteOptions = { dryRun: req.ctx.dryRun };
      const fv = req.query.get("fieldValidation");
      if (fv === "Ignore" || fv === "Warn" || fv === "Strict") options.fieldValidation = fv;
      if (req.query.getAll("dryRun").includes("All")) options.dryRun = true;
      const res = await finalizeStore.update(req.ctx, req.name, req.body as KubeObject, options);
      return { status: 200, body: res.object };
    },
  };
}

/**
 * The Namespace definition with its `finalize` subresource. makeStore builds a store for the
 * given definition over the same storage as the namespaces' own store.
 */
export function withNamespaceFinalize(nsDef: ResourceDefinition, makeStore: (def: ResourceDefinition) => ObjectStore): ResourceDefinition {
  const finalizeDef: ResourceDefinition = { ...nsDef, strategy: namespaceFinalizeStrategy(nsDef.strategy) };
  return { ...nsDef, subresources: { ...nsDef.subresources, finalize: namespaceFinalizeSubresource(makeStore(finalizeDef)) } };
}
