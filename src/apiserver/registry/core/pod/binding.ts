// pods/binding (pkg/registry/core/pod/storage BindingREST): what a scheduler posts. It sets
// spec.nodeName once, copies the Binding's annotations and sets PodScheduled=True; a pod that is
// being deleted, already bound or still gated cannot be bound (409). As in kube-apiserver it is a
// second store over the pods' storage whose update strategy changes only those fields.
import type { Binding, Pod } from "../../../../apis/core/v1/pod.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { newBadRequest, newConflict, newInvalid, newMethodNotSupported } from "../../../../apimachinery/errors.ts";
import { type FieldError, Path, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Subdomain } from "../../../../apimachinery/names/validation.ts";
import type { ObjectStore } from "../../generic/interface.ts";
import type { ResourceDefinition, Strategy, SubresourceHandler } from "../../types.ts";
import { asRecord, asString } from "../keys.ts";
import { metaTime } from "../../../../utils/time.ts";

const BINDING_GR = { group: "", resource: "pods/binding" };

/** Update strategy of pods/binding: the stored pod plus node name, annotations and PodScheduled. */
export function bindingStrategy(): Strategy<Pod> {
  return {
    prepareForUpdate(ctx, pod, old) {
      const nodeName = asString(pod.spec?.nodeName);
      const annotations = pod.metadata.annotations ?? {};
      const uid = pod.metadata.uid;
      for (const k of Object.keys(pod)) delete pod[k];
      Object.assign(pod, structuredClone(old));
      const name = old.metadata.name ?? "";
      if (uid && uid !== old.metadata.uid) {
        throw newConflict(BINDING_GR, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid ?? ""}`);
      }
      if (old.metadata.deletionTimestamp) throw newConflict(BINDING_GR, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      if (old.spec?.nodeName) throw newConflict(BINDING_GR, name, `pod ${name} is already assigned to node "${old.spec.nodeName}"`);
      if (old.spec?.schedulingGates?.length) throw newConflict(BINDING_GR, name, `pod ${name} has non-empty .spec.schedulingGates`);
      pod.spec = { ...pod.spec!, nodeName };
      if (Object.keys(annotations).length) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
      const status = (pod.status ??= {});
      const conditions = (status.conditions ?? []).filter((c) => c.type !== "PodScheduled");
      const previous = (status.conditions ?? []).find((c) => c.type === "PodScheduled");
      const now = metaTime(ctx.clock.now());
      conditions.push({
        type: "PodScheduled",
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: previous?.status === "True" ? (previous.lastTransitionTime ?? now) : now,
      });
      status.conditions = conditions;
    },
    // Nothing but the fields above changes: the pod's own update rules do not apply.
    validateUpdate: () => [],
    allowUnconditionalUpdate: true,
  };
}

/** ValidatePodBinding */
export function validateBinding(b: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const target = asRecord(b.target) ?? {};
  const kind = asString(target.kind);
  if (kind && kind !== "Node") errs.push(invalid(Path.root("target").child("kind"), kind, "must be empty or 'Node'"));
  const name = asString(target.name);
  if (!name) errs.push(required(Path.root("target").child("name")));
  else for (const m of isDNS1123Subdomain(name)) errs.push(invalid(Path.root("target").child("name"), name, m));
  return errs;
}

export function bindingSubresource(bindingStore: ObjectStore): SubresourceHandler {
  return {
    verbs: ["create"],
    responseKind: { group: "", version: "v1", kind: "Binding" },
    async handle(req) {
      if (req.verb !== "create") throw newMethodNotSupported(BINDING_GR, req.verb);
      const body = asRecord(req.body);
      if (!body) throw newBadRequest("the body of a pods/binding request must be a Binding");
      const binding = body as unknown as Binding;
      const meta = asRecord(binding.metadata) ?? {};
      if (asString(meta.name) && meta.name !== req.name) throw newBadRequest("name in URL does not match name in Binding object");
      const errs = validateBinding(binding);
      if (errs.length) throw newInvalid({ group: "", kind: "Binding" }, req.name, errs);
      const podMeta: KubeObject["metadata"] = { name: req.name };
      const annotations = asRecord(meta.annotations);
      if (annotations) podMeta.annotations = annotations as Record<string, string>;
      if (asString(meta.uid)) podMeta.uid = asString(meta.uid);
      if (asString(meta.resourceVersion)) podMeta.resourceVersion = asString(meta.resourceVersion);
      const pod = { apiVersion: "v1", kind: "Pod", metadata: podMeta, spec: { nodeName: asString(asRecord(binding.target)?.name) } };
      await bindingStore.update(req.ctx, req.name, pod, { dryRun: req.ctx.dryRun || req.query.getAll("dryRun").includes("All") });
      return { status: 201, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 } };
    },
  };
}

/** The Pod definition with its binding subresource, over a second store of the same storage. */
export function withPodBinding(podDef: ResourceDefinition, makeStore: (def: ResourceDefinition) => ObjectStore): ResourceDefinition {
  const bindingDef: ResourceDefinition = { ...podDef, strategy: bindingStrategy() as Strategy };
  return { ...podDef, subresources: { ...podDef.subresources, binding: bindingSubresource(makeStore(bindingDef)) } };
}
