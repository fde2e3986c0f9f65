// Admission plugin `NodeRestriction` (docs/node-authorization.md; kube's
// plugin/pkg/admission/noderestriction): narrows what the Node authorizer lets node identities
// write to what concerns the node itself. A node may create, update and patch only its own Node
// (no taint changes, only kubelet labels, never node-restriction.kubernetes.io/ labels); create
// only mirror pods bound to itself that reference nothing; update the status of and delete only
// pods bound to itself; request tokens only bound to a pod bound to itself; touch only its own
// Lease in kube-node-lease. Validating, so it judges the object as it would be stored; the
// stored pod, Node and Lease are read, never what the request says about them.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { nodeIdentity } from "../../../api/core/nodeidentity.ts";
import { isMirrorPod, podReferences } from "../../../api/core/podrefs.ts";
import { newForbidden, newNotFound, type StatusError } from "../../../apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.ts";
import type { InternalClient } from "../../registry/client.ts";
import { forbiddenLabels, modifiedLabels } from "./labels.ts";
import { NODES, PODS } from "../../registry/core/resources.ts";

export const PLUGIN_NAME = "NodeRestriction";
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

type Spec = Record<string, unknown>;
const specOf = (o: KubeObject | undefined): Spec => (typeof o?.spec === "object" && o.spec !== null ? (o.spec as Spec) : {});
const nodeNameOf = (o: KubeObject | undefined): string => (typeof specOf(o).nodeName === "string" ? (specOf(o).nodeName as string) : "");

function forbid(attrs: AdmissionAttributes, reason: string): StatusError {
  return newForbidden({ group: attrs.resource.group, resource: attrs.resource.plural }, attrs.name || (attrs.object?.metadata.name ?? ""), reason);
}

export class NodeRestriction implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (attrs.operation === "CONNECT") return;
    const id = nodeIdentity(attrs.user);
    if (!id) return;
    return this.validateNode(attrs, client, id);
  }

  private async validateNode(attrs: AdmissionAttributes, client: InternalClient, id: NonNullable<ReturnType<typeof nodeIdentity>>): Promise<void> {
    if (!id.nodeName) throw forbid(attrs, `could not determine node from user "${attrs.user.username}"`);
    const node = id.nodeName;
    const { group, plural } = attrs.resource;
    if (group === "" && plural === "pods") return this.pod(node, attrs, client);
    if (group === "" && plural === "nodes") return this.node(node, attrs);
    if (group === "" && plural === "persistentvolumeclaims" && attrs.subresource !== "status") throw forbid(attrs, "may only update PVC status");
    if (group === "" && plural === "serviceaccounts") return this.serviceAccount(node, attrs, client);
    if (group === "coordination.k8s.io" && plural === "leases") return this.lease(node, attrs);
  }

  private async pod(node: string, attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.subresource === "status") {
      if (attrs.operation !== "UPDATE") throw forbid(attrs, `unexpected operation "${attrs.operation}"`);
      if (nodeNameOf(attrs.oldObject) !== node) throw forbid(attrs, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
      if (modifiedLabels(attrs.object?.metadata.labels, attrs.oldObject?.metadata.labels).size > 0) throw forbid(attrs, `node "${node}" cannot update labels through pod status`);
      return;
    }
    if (attrs.subresource === "eviction") {
      if (nodeNameOf(attrs.oldObject) !== node) throw forbid(attrs, `node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    if (attrs.subresource !== "") throw forbid(attrs, `unexpected pod subresource "${attrs.subresource}", only 'status' and 'eviction' are allowed`);
    if (attrs.operation === "DELETE") {
      if (nodeNameOf(attrs.oldObject) !== node) throw forbid(attrs, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    if (attrs.operation !== "CREATE") throw forbid(attrs, `unexpected operation "${attrs.operation}", node "${node}" can only create and delete mirror pods`);
    await this.mirrorPod(node, attrs, client);
  }

  private async mirrorPod(node: string, attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    const pod = attrs.object!;
    if (!isMirrorPod(pod)) throw forbid(attrs, `pod does not have "kubernetes.io/config.mirror" annotation, node "${node}" can only create mirror pods`);
    if (nodeNameOf(pod) !== node) throw forbid(attrs, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw forbid(attrs, `node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== "v1" || owner.kind !== "Node" || owner.name !== node) {
      throw forbid(attrs, `node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw forbid(attrs, `node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbid(attrs, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const stored = await client.get(NODES, undefined, node);
    if (!stored) throw newNotFound(NODES, node);
    if (owner.uid !== stored.metadata.uid) throw forbid(attrs, `node ${node} UID mismatch: expected ${owner.uid} got ${stored.metadata.uid ?? ""}`);
    const refs = podReferences(pod);
    if (refs.serviceAccount) throw forbid(attrs, `node "${node}" can not create pods that reference a service account`);
    if (refs.secrets.size > 0) throw forbid(attrs, `node "${node}" can not create pods that reference secrets`);
    if (refs.configMaps.size > 0) throw forbid(attrs, `node "${node}" can not create pods that reference configmaps`);
    if (refs.persistentVolumeClaims.size > 0) throw forbid(attrs, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  private node(node: string, attrs: AdmissionAttributes): void {
    const name = attrs.name || (attrs.object?.metadata.name ?? "");
    if (name !== node) throw forbid(attrs, `node "${node}" is not allowed to modify node "${name}"`);
    if (attrs.operation === "CREATE") {
      const bad = forbiddenLabels(modifiedLabels(attrs.object?.metadata.labels, undefined));
      if (bad.length > 0) throw forbid(attrs, `node "${node}" is not allowed to set the following labels: ${bad.join(", ")}`);
    }
    if (attrs.operation === "UPDATE") {
      const taints = (o: KubeObject | undefined) => JSON.stringify(specOf(o).taints ?? []);
      if (taints(attrs.object) !== taints(attrs.oldObject)) throw forbid(attrs, `node "${node}" is not allowed to modify taints`);
      const bad = forbiddenLabels(modifiedLabels(attrs.object?.metadata.labels, attrs.oldObject?.metadata.labels));
      if (bad.length > 0) throw forbid(attrs, `is not allowed to modify labels: ${bad.join(", ")}`);
    }
  }

  /** TokenRequests of a node must be bound to a pod (by name and uid) that is bound to the node. */
  private async serviceAccount(node: string, attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.operation !== "CREATE" || attrs.subresource !== "token") return;
    const ref = (specOf(attrs.object).boundObjectRef ?? undefined) as { apiVersion?: unknown; kind?: unknown; name?: unknown; uid?: unknown } | undefined;
    if (!ref || ref.apiVersion !== "v1" || ref.kind !== "Pod" || typeof ref.name !== "string" || ref.name === "") throw forbid(attrs, "node requested token not bound to a pod");
    if (typeof ref.uid !== "string" || ref.uid === "") throw forbid(attrs, "node requested token with a pod binding without a uid");
    const pod = await client.get(PODS, attrs.namespace, ref.name);
    if (!pod) throw newNotFound(PODS, ref.name);
    if (pod.metadata.uid !== ref.uid) {
      throw forbid(attrs, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (nodeNameOf(pod) !== node) throw forbid(attrs, "node requested token bound to a pod scheduled on a different node");
  }

  private lease(node: string, attrs: AdmissionAttributes): void {
    if (attrs.namespace !== NODE_LEASE_NAMESPACE) throw forbid(attrs, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    const name = attrs.operation === "CREATE" ? (attrs.object?.metadata.name ?? "") : attrs.name;
    if (name !== node) throw forbid(attrs, "can only access node lease with the same name as the requesting node");
  }
}
