// The Node authorizer (docs/node-authorization.md; kube's plugin/pkg/auth/authorizer/node): for
// node identities (`system:node:<name>` in `system:nodes`) it allows reads of the secrets,
// configmaps, PVCs and PVs that pods bound to the node reference, tokens of those pods' service
// accounts, the node's own Lease, Node and pods (AuthorizeNodeWithSelectors), and otherwise the
// static node rules (rules.ts). It answers Allow or NoOpinion, so RBAC decides what it does not
// allow. Decisions read only the graph, which follows stored pods through a watch; before the
// first list is in, related-object requests get NoOpinion.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { nodeIdentity } from "../../../api/core/nodeidentity.ts";
import { parseFieldSelector, requirementsOf } from "../../../apimachinery/fields/selector.ts";
import type { UserInfo } from "../../authentication/types.ts";
import type { Clock } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import { Reflector } from "../reflector.ts";
import { ruleAllows } from "../rules.ts";
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "../types.ts";
import { NodeGraph, type ReferencedType } from "./graph.ts";
import { nodeRules } from "./rules.ts";
import { PERSISTENT_VOLUMES, PODS } from "../../registry/core/resources.ts";

export const NODE_LEASE_NAMESPACE = "kube-node-lease";

const noOpinion = (reason: string): AuthorizationResult => ({ decision: "noOpinion", reason });
const allow: AuthorizationResult = { decision: "allow", reason: "" };

export interface NodeAuthorizerOptions {
  clock?: Clock;
  onError?: (err: unknown) => void;
  /** Follow PersistentVolumes (claimRef edges); only when the server serves them. */
  persistentVolumes?: boolean;
}

/** Whether a list/watch field selector pins `field` to exactly `value`. */
export function selectsField(fieldSelector: string | undefined, field: string, value: string): boolean {
  if (!fieldSelector) return false;
  try {
    return requirementsOf(parseFieldSelector(fieldSelector)).some((r) => r.field === field && r.operator !== "!=" && r.value === value);
  } catch {
    return false;
  }
}

export class NodeAuthorizer implements Authorizer, RuleResolver {
  readonly graph = new NodeGraph();
  private readonly reflectors: Reflector<KubeObject>[];
  private readonly rules = nodeRules();
  private synced = false;

  constructor(client: InternalClient, opts: NodeAuthorizerOptions = {}) {
    const g = this.graph;
    const ropts = { clock: opts.clock, onError: opts.onError };
    this.reflectors = [
      new Reflector(client, PODS, { replace: (items) => g.replacePods(items), upsert: (o) => g.setPod(o), remove: (o) => g.removePod(o.metadata.namespace ?? "", o.metadata.name ?? "") }, ropts),
    ];
    if (opts.persistentVolumes) {
      const feed = { replace: (items: KubeObject[]) => g.replaceVolumes(items), upsert: (o: KubeObject) => g.setVolume(o), remove: (o: KubeObject) => g.removeVolume(o.metadata.name ?? "") };
      this.reflectors.push(new Reflector(client, PERSISTENT_VOLUMES, feed, ropts));
    }
  }

  /** Resolves when the graph holds the stored pods and follows their changes. */
  async start(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.start()));
    this.synced = true;
  }

  stop(): void {
    this.synced = false;
    for (const r of this.reflectors) r.stop();
  }

  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return Promise.resolve(this.decide(attrs));
  }

  /** As upstream: a node's permissions cannot be listed (they depend on the graph). */
  rulesFor(user: UserInfo): Promise<RulesResult> {
    if (!nodeIdentity(user)) return Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: false });
    return Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "node authorizer does not support user rule resolution" });
  }

  decide(attrs: AuthorizationAttributes): AuthorizationResult {
    const id = nodeIdentity(attrs.user);
    if (!id) return noOpinion("");
    if (!id.nodeName) return noOpinion(`unknown node for user "${attrs.user.username}"`);
    const node = id.nodeName;
    if (attrs.resourceRequest) {
      const group = attrs.apiGroup ?? "";
      const resource = attrs.resource ?? "";
      if (group === "") {
        switch (resource) {
          case "secrets":
            return this.readNamespaced(node, "secret", attrs);
          case "configmaps":
            return this.readNamespaced(node, "configmap", attrs);
          case "persistentvolumeclaims":
            return attrs.subresource === "status" ? this.statusUpdate(node, attrs) : this.getRelated(node, "persistentvolumeclaim", attrs);
          case "persistentvolumes":
            return this.getVolume(node, attrs);
          case "serviceaccounts":
            return this.createToken(node, attrs);
          case "nodes":
            return this.nodeAccess(node, attrs);
          case "pods":
            return this.podAccess(node, attrs);
        }
      }
      if (group === "coordination.k8s.io" && resource === "leases") return this.lease(node, attrs);
      if (group === "storage.k8s.io" && resource === "csinodes") return this.csiNode(node, attrs);
      // No VolumeAttachments are served: none can relate to a node.
      if (group === "storage.k8s.io" && resource === "volumeattachments") return this.related(node, attrs, () => false);
    }
    return this.rules.some((r) => ruleAllows(attrs, r)) ? allow : noOpinion("");
  }

  private related(node: string, attrs: AuthorizationAttributes, has: () => boolean): AuthorizationResult {
    if (!attrs.name) return noOpinion("No Object name found");
    if (!this.synced) return noOpinion("node authorizer is not ready yet");
    return has() ? allow : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private relatedObject(node: string, type: ReferencedType, attrs: AuthorizationAttributes): AuthorizationResult {
    return this.related(node, attrs, () => this.graph.relates(type, attrs.namespace ?? "", attrs.name ?? "", node));
  }

  /** get, list and watch of one named object (list/watch: a metadata.name field selector). */
  private readNamespaced(node: string, type: ReferencedType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!["get", "list", "watch"].includes(attrs.verb)) return noOpinion("can only read resources of this type");
    if (attrs.subresource) return noOpinion("cannot read subresource");
    if (!attrs.namespace) return noOpinion("can only read namespaced object of this type");
    return this.relatedObject(node, type, attrs);
  }

  private getRelated(node: string, type: ReferencedType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (attrs.subresource) return noOpinion("cannot get subresource");
    return this.relatedObject(node, type, attrs);
  }

  private statusUpdate(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== "update" && attrs.verb !== "patch") return noOpinion("can only get/update/patch this type");
    return this.relatedObject(node, "persistentvolumeclaim", attrs);
  }

  private getVolume(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (attrs.subresource) return noOpinion("cannot get subresource");
    return this.related(node, attrs, () => this.graph.relatesVolume(attrs.name ?? "", node));
  }

  /** create serviceaccounts/<name>/token for the service account of a pod bound to the node. */
  private createToken(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== "create" || !attrs.name) return noOpinion("can only create tokens for individual service accounts");
    if (attrs.subresource !== "token") return noOpinion("can only create token subresource of serviceaccount");
    return this.relatedObject(node, "serviceaccount", attrs);
  }

  private lease(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!["get", "create", "update", "patch", "delete"].includes(attrs.verb)) return noOpinion("can only get, create, update, patch, or delete a node lease");
    if (attrs.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // create carries no name: NodeRestriction checks the object's.
    if (attrs.verb !== "create" && attrs.name !== node) return noOpinion("can only access node lease with the same name as the requesting node");
    return allow;
  }

  private csiNode(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!["get", "create", "update", "patch", "delete"].includes(attrs.verb)) return noOpinion("can only get, create, update, patch, or delete a CSINode");
    if (attrs.subresource) return noOpinion("cannot authorize CSINode subresources");
    if (attrs.verb !== "create" && attrs.name !== node) return noOpinion("can only access CSINode with the same name as the requesting node");
    return allow;
  }

  /** Writes are narrowed by NodeRestriction; reads by name (also before the Node exists). */
  private nodeAccess(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    const sub = attrs.subresource ?? "";
    if (sub === "" && ["create", "update", "patch"].includes(attrs.verb)) return allow;
    if (sub === "" && ["get", "list", "watch"].includes(attrs.verb)) {
      if (attrs.name === node) return allow;
      if (!attrs.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
    }
    if (sub === "status" && (attrs.verb === "update" || attrs.verb === "patch")) return allow;
    return noOpinion("");
  }

  private podAccess(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    const sub = attrs.subresource ?? "";
    const bound = () => this.graph.nodeOfPod(attrs.namespace ?? "", attrs.name ?? "") === node;
    if (sub === "") {
      if (attrs.verb === "get") return this.related(node, attrs, bound);
      if (attrs.verb === "list" || attrs.verb === "watch") {
        if (selectsField(attrs.fieldSelector, "spec.nodeName", node)) return allow;
        if (attrs.name) return this.related(node, attrs, bound);
        return noOpinion("can only list/watch pods with spec.nodeName field selector");
      }
      // Mirror pods and deleting pods bound to the node: NodeRestriction narrows these.
      if (attrs.verb === "create" || attrs.verb === "delete") return allow;
    }
    if (sub === "status" && (attrs.verb === "update" || attrs.verb === "patch")) return allow;
    if (sub === "eviction" && attrs.verb === "create") return allow;
    return noOpinion("");
  }
}
