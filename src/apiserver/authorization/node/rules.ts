// The static rules every node identity gets from the Node authorizer, as kube's bootstrap policy
// NodeRules() (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go) lists them; also the
// rules of the `system:node` ClusterRole, which (as upstream since 1.8) is bound to no one by
// default. Secrets, configmaps, PVCs, PVs, serviceaccounts/token, leases, nodes and pods are
// narrowed by the authorizer before these rules apply (docs/node-authorization.md).
import type { PolicyRule } from "../../../apis/rbac/v1/types.ts";

const READ = ["get", "list", "watch"];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

export function nodeRules(): PolicyRule[] {
  return [
    // Checks of API access; these creates change nothing.
    rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
    rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews", "subjectaccessreviews"]),
    // Service environment variables of pods.
    rule(READ, [""], ["services"]),
    // Registering and reporting on the Node (NodeRestriction: only its own).
    rule(["create", "get", "list", "watch"], [""], ["nodes"]),
    rule(["patch", "update"], [""], ["nodes/status"]),
    rule(["patch", "update"], [""], ["nodes"]),
    rule(["create", "patch", "update"], ["", "events.k8s.io"], ["events"]),
    rule(READ, [""], ["pods"]),
    // Mirror pods and deleting pods bound to it (NodeRestriction).
    rule(["create", "delete"], [""], ["pods"]),
    rule(["patch", "update"], [""], ["pods/status"]),
    rule(["create"], [""], ["pods/eviction"]),
    // Secrets, configmaps and volumes of its pods (the authorizer's graph narrows these).
    rule(READ, [""], ["configmaps", "secrets"]),
    rule(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["get"], [""], ["endpoints"]),
    // Its own client certificate (renewal: certificatesigningrequests/selfnodeclient comes from RBAC).
    rule(["create", "get", "list", "watch"], ["certificates.k8s.io"], ["certificatesigningrequests"]),
    rule(["create", "delete", "get", "patch", "update"], ["coordination.k8s.io"], ["leases"]),
    rule(["get"], ["storage.k8s.io"], ["volumeattachments"]),
    rule(["get", "patch", "update"], [""], ["persistentvolumeclaims/status"]),
    rule(["create"], [""], ["serviceaccounts/token"]),
    rule(READ, ["storage.k8s.io"], ["csidrivers"]),
    rule(["create", "delete", "get", "patch", "update"], ["storage.k8s.io"], ["csinodes"]),
    rule(READ, ["node.k8s.io"], ["runtimeclasses"]),
  ];
}
