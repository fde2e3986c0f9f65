// The garden's ClusterRoles for Gardener kinds (docs/bastion.md#roles): the project member and
// viewer roles the project controller binds in project namespaces (aggregated from labelled
// roles, so extensions can add rules), and the cluster-wide gardener.cloud:admin and :viewer.
// Project members may SSH onto their project's nodes: they get full access to Bastions; viewers
// may only read them; `bastions/status` is left to the gardenlet (seed authorizer) and admins.
// Members likewise manage web terminals (Terminals, docs/terminals.md#roles); viewers read them.
// The project role `serviceaccountmanager` binds gardener.cloud:system:project-serviceaccountmanager:
// the project namespace's ServiceAccounts and their tokens (docs/bastion.md#project).
import type { ClusterRole, PolicyRule } from "../../apis/rbac/v1/types.ts";
import { isAlreadyExists } from "../../apimachinery/errors.ts";
import { semanticEqual } from "../../api/equality.ts";
import type { InternalClient } from "../registry/client.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";
const CLUSTER_ROLES = { group: RBAC_GROUP, resource: "clusterroles" };
const CORE = "core.gardener.cloud";
const OPERATIONS = "operations.gardener.cloud";
const DASHBOARD = "dashboard.gardener.cloud";

export const PROJECT_MEMBER = "gardener.cloud:system:project-member";
export const PROJECT_VIEWER = "gardener.cloud:system:project-viewer";
export const PROJECT_MEMBER_AGGREGATION = "gardener.cloud:system:project-member-aggregation";
export const PROJECT_VIEWER_AGGREGATION = "gardener.cloud:system:project-viewer-aggregation";
export const PROJECT_SERVICEACCOUNTMANAGER = "gardener.cloud:system:project-serviceaccountmanager";
export const PROJECT_SERVICEACCOUNTMANAGER_AGGREGATION = "gardener.cloud:system:project-serviceaccountmanager-aggregation";
export const GARDEN_ADMIN = "gardener.cloud:admin";
export const GARDEN_VIEWER = "gardener.cloud:viewer";
export const AGGREGATE_TO_PROJECT_MEMBER = "rbac.gardener.cloud/aggregate-to-project-member";
export const AGGREGATE_TO_PROJECT_VIEWER = "rbac.gardener.cloud/aggregate-to-project-viewer";
export const AGGREGATE_TO_PROJECT_SERVICEACCOUNTMANAGER = "rbac.gardener.cloud/aggregate-to-project-serviceaccountmanager";

const READ = ["get", "list", "watch"];
const ALL = ["create", "delete", "deletecollection", "get", "list", "watch", "patch", "update"];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

function role(name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: "ClusterRole", metadata: { name, ...(labels ? { labels } : {}) }, rules };
}

function aggregated(name: string, label: string): ClusterRole {
  return { ...role(name, []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: "true" } }] } };
}

/**
 * Besides Bastions, members manage the project's Shoots and the Secrets and ConfigMaps of the
 * project namespace (gardenctl reads the shoot's SSH key Secret); viewers read Shoots and ConfigMaps
 * but no Secrets; both read the namespace's ServiceAccounts, which only service account managers
 * create, change, delete and mint tokens for (Gardener's roles).
 */
export function gardenClusterRoles(): ClusterRole[] {
  return [
    aggregated(PROJECT_MEMBER, AGGREGATE_TO_PROJECT_MEMBER),
    role(
      PROJECT_MEMBER_AGGREGATION,
      [rule(ALL, [OPERATIONS], ["bastions"]), rule(ALL, [CORE], ["shoots"]), rule(ALL, [""], ["secrets", "configmaps"]), rule(READ, [""], ["events", "serviceaccounts"]), rule(ALL, [DASHBOARD], ["terminals"]), rule(["create"], [CORE], ["shoots/adminkubeconfig"])],
      { [AGGREGATE_TO_PROJECT_MEMBER]: "true" },
    ),
    aggregated(PROJECT_VIEWER, AGGREGATE_TO_PROJECT_VIEWER),
    role(
      PROJECT_VIEWER_AGGREGATION,
      [rule(READ, [OPERATIONS], ["bastions"]), rule(READ, [CORE], ["shoots"]), rule(READ, [""], ["configmaps", "events", "serviceaccounts"]), rule(READ, [DASHBOARD], ["terminals"])],
      { [AGGREGATE_TO_PROJECT_VIEWER]: "true" },
    ),
    aggregated(PROJECT_SERVICEACCOUNTMANAGER, AGGREGATE_TO_PROJECT_SERVICEACCOUNTMANAGER),
    role(PROJECT_SERVICEACCOUNTMANAGER_AGGREGATION, [rule(ALL, [""], ["serviceaccounts"]), rule(["create"], [""], ["serviceaccounts/token"])], {
      [AGGREGATE_TO_PROJECT_SERVICEACCOUNTMANAGER]: "true",
    }),
    role(GARDEN_ADMIN, [rule(["*"], [OPERATIONS], ["*"]), rule(["*"], [CORE], ["*"]), rule(["*"], [DASHBOARD], ["*"])]),
    role(GARDEN_VIEWER, [rule(READ, [OPERATIONS], ["*"]), rule(READ, [CORE], ["*"]), rule(READ, [DASHBOARD], ["*"])]),
  ];
}

/** What ensureGardenPolicy keeps equal to the desired role (an aggregated role's rules are the aggregation controller's). */
function differs(current: ClusterRole, desired: ClusterRole): boolean {
  const labels = current.metadata.labels ?? {};
  const missingLabel = Object.entries(desired.metadata.labels ?? {}).some(([k, v]) => labels[k] !== v);
  if (missingLabel || !semanticEqual(current.aggregationRule, desired.aggregationRule)) return true;
  return desired.aggregationRule === undefined && !semanticEqual(current.rules, desired.rules);
}

/** Creates the garden roles, or updates them back to the desired labels, rules and aggregation; returns the names written. */
export async function ensureGardenPolicy(client: InternalClient): Promise<string[]> {
  const written: string[] = [];
  for (const desired of gardenClusterRoles()) {
    const name = desired.metadata.name!;
    const current = (await client.get(CLUSTER_ROLES, undefined, name)) as ClusterRole | undefined;
    if (!current) {
      try {
        await client.create(CLUSTER_ROLES, desired);
        written.push(name);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err; // another replica was faster
      }
      continue;
    }
    if (!differs(current, desired)) continue;
    const next: ClusterRole = {
      ...current,
      metadata: { ...current.metadata, labels: { ...(current.metadata.labels ?? {}), ...(desired.metadata.labels ?? {}) } },
      rules: desired.aggregationRule ? (current.rules ?? []) : desired.rules,
    };
    if (desired.aggregationRule) next.aggregationRule = desired.aggregationRule;
    else delete next.aggregationRule;
    await client.update(CLUSTER_ROLES, next);
    written.push(name);
  }
  return written;
}
