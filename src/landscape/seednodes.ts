// The seed's worker joins the seed as the shoot's workers join the shoot (docs/node-bootstrap.md#the-local-landscape):
// a bootstrap token of its own, then its own `system:node:<name>` identity and a kubelet serving certificate,
// so the seed API server can attach to the pods of operators' terminals on it (docs/terminals.md#seed-hosts).
// A node identity may read no Secret of kube-system but its pool's OSC Secret, and the seed has no gardenlet
// that writes one: its node agent follows SEED_OSC_SECRET by name (`--secret-name`; the Secret need not
// exist), which the Role below allows nodes to get, list and watch, and nothing else.
import { OSC_NAMESPACE } from "../api/gardencore/osc.ts";
import { RoleBindings, Roles } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { createOrPatch } from "../client/helpers.ts";
import { WORKER_POOL } from "./layout.ts";

/** The OSC Secret the seed's node agents follow (none is written: there is no OSC for the seed's pool). */
export const SEED_OSC_SECRET = `gardener-node-agent-seed-${WORKER_POOL}`;
/** The Role and RoleBinding in the seed's kube-system, named as the gardenlet names a shoot's. */
export const SEED_OSC_ACCESS = { namespace: OSC_NAMESPACE, name: "gardener.cloud:node-agent:operating-system-config" };
const RBAC = "rbac.authorization.k8s.io";

/** Lets the seed's nodes follow SEED_OSC_SECRET by name; idempotent. Before the seed's workers start. */
export async function allowSeedNodesOSC(seed: Client): Promise<void> {
  await createOrPatch(seed, Roles, SEED_OSC_ACCESS, (r) => {
    r.rules = [{ apiGroups: [""], resources: ["secrets"], resourceNames: [SEED_OSC_SECRET], verbs: ["get", "list", "watch"] }];
  });
  await createOrPatch(seed, RoleBindings, SEED_OSC_ACCESS, (b) => {
    b.roleRef = { apiGroup: RBAC, kind: "Role", name: SEED_OSC_ACCESS.name };
    b.subjects = [{ kind: "Group", apiGroup: RBAC, name: "system:nodes" }];
  });
}
