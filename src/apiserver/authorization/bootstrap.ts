// The default RBAC policy kube-apiserver creates on start (a subset of [k8s]
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy): cluster-admin, the aggregated admin/edit/view
// roles with base rules for the core kinds this server serves, discovery, basic-user,
// public-info-viewer, system:kube-scheduler and system:node (the Node authorizer's rules, bound to
// no one, as upstream), and their bindings. Existing objects are left alone.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from "../../apis/rbac/v1/types.ts";
import { isAlreadyExists } from "../../apimachinery/errors.ts";
import { SCHEDULER_USER } from "../certs/pki.ts";
import { nodeRules } from "./node/rules.ts";
import type { InternalClient } from "../registry/client.ts";

const G = "rbac.authorization.k8s.io";
const API_VERSION = `${G}/v1`;
export const AGGREGATE_TO = (role: "admin" | "edit" | "view") => `rbac.authorization.k8s.io/aggregate-to-${role}`;

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });
const named = (verbs: string[], apiGroups: string[], resources: string[], resourceNames: string[]): PolicyRule => ({ verbs, apiGroups, resources, resourceNames });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

function meta(name: string, labels: Record<string, string> = {}): KubeObject["metadata"] {
  return {
    name,
    labels: { "kubernetes.io/bootstrapping": "rbac-defaults", ...labels },
    annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
  };
}

function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole {
  return { apiVersion: API_VERSION, kind: "ClusterRole", metadata: meta(name, labels), rules };
}

function aggregated(name: "admin" | "edit" | "view", labels?: Record<string, string>): ClusterRole {
  return {
    apiVersion: API_VERSION,
    kind: "ClusterRole",
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(name)]: "true" } }] },
    rules: [],
  };
}

export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    aggregated("admin"),
    aggregated("edit", { [AGGREGATE_TO("admin")]: "true" }),
    aggregated("view", { [AGGREGATE_TO("edit")]: "true" }),
    clusterRole(
      "system:aggregate-to-admin",
      [rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]), rule([...READ, ...WRITE], [G], ["rolebindings", "roles"])],
      { [AGGREGATE_TO("admin")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        rule(["impersonate"], [""], ["serviceaccounts"]),
        rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
        rule(READ, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"]),
        rule(["create"], [""], ["pods/eviction", "serviceaccounts/token"]),
        rule(WRITE, [""], ["configmaps", "endpoints", "events", "persistentvolumeclaims", "secrets", "serviceaccounts", "services", "services/proxy"]),
        rule(WRITE, ["coordination.k8s.io"], ["leases"]),
      ],
      { [AGGREGATE_TO("edit")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(READ, [""], ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "serviceaccounts", "services"]),
        rule(READ, [""], ["events", "limitranges", "namespaces/status", "pods/log", "pods/status", "resourcequotas"]),
        rule(READ, [""], ["namespaces"]),
        rule(READ, ["events.k8s.io"], ["events"]),
        rule(READ, ["coordination.k8s.io"], ["leases"]),
      ],
      { [AGGREGATE_TO("view")]: "true" },
    ),
    clusterRole("system:discovery", [
      urls(["get"], ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"]),
    ]),
    clusterRole("system:basic-user", [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]),
    clusterRole("system:kube-scheduler", kubeSchedulerRules()),
    clusterRole("system:node", nodeRules()),
    ...nodeBootstrapClusterRoles(),
  ];
}

const CERTS = "certificates.k8s.io";
const CSR_ROLE = (sub: "nodeclient" | "selfnodeclient") => `system:certificates.k8s.io:certificatesigningrequests:${sub}`;

/** Node TLS bootstrapping (docs/node-bootstrap.md): who may request which node certificates. */
function nodeBootstrapClusterRoles(): ClusterRole[] {
  const approver = (signer: string): PolicyRule => ({ verbs: ["approve"], apiGroups: [CERTS], resources: ["signers"], resourceNames: [signer] });
  return [
    clusterRole("system:node-bootstrapper", [rule(["create", "get", "list", "watch"], [CERTS], ["certificatesigningrequests"])]),
    clusterRole(CSR_ROLE("nodeclient"), [rule(["create"], [CERTS], ["certificatesigningrequests/nodeclient"])]),
    clusterRole(CSR_ROLE("selfnodeclient"), [rule(["create"], [CERTS], ["certificatesigningrequests/selfnodeclient"])]),
    clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", [approver("kubernetes.io/kube-apiserver-client-kubelet")]),
    clusterRole("system:certificates.k8s.io:kubelet-serving-approver", [approver("kubernetes.io/kubelet-serving")]),
  ];
}

/** Upstream's system:kube-scheduler rules, word for word. */
function kubeSchedulerRules(): PolicyRule[] {
  return [
    rule(["create", "update", "patch"], ["", "events.k8s.io"], ["events"]),
    // leader election
    rule(["create"], ["coordination.k8s.io"], ["leases"]),
    named(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-scheduler"]),
    rule(READ, [""], ["nodes"]),
    rule(["get", "list", "watch", "delete"], [""], ["pods"]),
    rule(["create"], [""], ["pods/binding", "bindings"]),
    rule(["patch", "update"], [""], ["pods/status"]),
    rule(READ, [""], ["services", "replicationcontrollers"]),
    rule(READ, ["apps", "extensions"], ["replicasets"]),
    rule(READ, ["apps"], ["statefulsets"]),
    rule(READ, ["policy"], ["poddisruptionbudgets"]),
    rule(READ, [""], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
    rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
    rule(READ, ["storage.k8s.io"], ["csinodes"]),
    rule(READ, [""], ["namespaces"]),
    rule(READ, ["storage.k8s.io"], ["csidrivers"]),
    rule(READ, ["storage.k8s.io"], ["csistoragecapacities"]),
  ];
}

const group = (name: string): Subject => ({ kind: "Group", apiGroup: G, name });
const user = (name: string): Subject => ({ kind: "User", apiGroup: G, name });

function binding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return { apiVersion: API_VERSION, kind: "ClusterRoleBinding", metadata: meta(name), roleRef: { apiGroup: G, kind: "ClusterRole", name: role }, subjects };
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding("cluster-admin", "cluster-admin", [group("system:masters")]),
    binding("system:discovery", "system:discovery", [group("system:authenticated")]),
    binding("system:basic-user", "system:basic-user", [group("system:authenticated")]),
    binding("system:public-info-viewer", "system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
    binding("system:kube-scheduler", "system:kube-scheduler", [user(SCHEDULER_USER)]),
    // As Gardener binds them in every shoot (kubeadm: kubeadm:kubelet-bootstrap, kubeadm:node-autoapprove-*):
    // bootstrap tokens may request node client certificates, nodes may renew their own.
    binding("system:node-bootstrapper", "system:node-bootstrapper", [group("system:bootstrappers")]),
    binding(CSR_ROLE("nodeclient"), CSR_ROLE("nodeclient"), [group("system:bootstrappers")]),
    binding(CSR_ROLE("selfnodeclient"), CSR_ROLE("selfnodeclient"), [group("system:nodes")]),
  ];
}

/** Creates the default roles and bindings that do not exist yet; returns the names it created. */
export async function ensureBootstrapPolicy(client: InternalClient): Promise<{ clusterRoles: string[]; clusterRoleBindings: string[] }> {
  const created = { clusterRoles: [] as string[], clusterRoleBindings: [] as string[] };
  const ensure = async (resource: string, obj: KubeObject, into: string[]) => {
    const gr = { group: G, resource };
    if (await client.get(gr, undefined, obj.metadata.name!)) return;
    try {
      await client.create(gr, obj);
      into.push(obj.metadata.name!);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err; // another replica was faster
    }
  };
  for (const r of bootstrapClusterRoles()) await ensure("clusterroles", r, created.clusterRoles);
  for (const b of bootstrapClusterRoleBindings()) await ensure("clusterrolebindings", b, created.clusterRoleBindings);
  return created;
}
