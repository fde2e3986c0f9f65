// RBAC escalation prevention against the real server with token users: writing a Role or
// ClusterRole, or a binding, that grants more than the writer holds is 403 with Kubernetes'
// message, unless the writer may `escalate` the role or `bind` it; aggregation and patches of
// existing objects are no way around it. Others are served within 1 s throughout.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient, type RawClient, type RawResponse } from "../../support/http.ts";
import { writeTokenAuthFile, writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { kubectlFor } from "../../support/kubectl.ts";
import { assertServedThroughout, startBystander } from "../../support/liveness.ts";
import { expectStatus } from "../robustness/status.ts";

const G = "rbac.authorization.k8s.io";
const API = `/apis/${G}/v1`;
const roles = (ns: string) => `${API}/namespaces/${ns}/roles`;
const roleBindings = (ns: string) => `${API}/namespaces/${ns}/rolebindings`;
const clusterRoles = `${API}/clusterroles`;
const clusterRoleBindings = `${API}/clusterrolebindings`;
const json = { "content-type": "application/json" };

const WRITE = ["create", "get", "update", "patch"];
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): Rule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const role = (kind: "Role" | "ClusterRole", name: string, rules: Rule[], extra: Record<string, unknown> = {}, labels?: Record<string, string>) => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name, ...(labels ? { labels } : {}) },
  rules,
  ...extra,
});
const user = (name: string) => ({ kind: "User", apiGroup: G, name });
const binding = (kind: "RoleBinding" | "ClusterRoleBinding", name: string, roleKind: "Role" | "ClusterRole", roleName: string, users: string[]) => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name },
  roleRef: { apiGroup: G, kind: roleKind, name: roleName },
  subjects: users.map(user),
});
const CLUSTER_ADMIN_MISSING = '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}';
const notHeld = (who: string) => `user "${who}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n`;

// Who may do what, granted by the admin. team and other are the namespaces.
const grants = {
  clusterRoles: [
    role("ClusterRole", "t-rb-writer", [rule(WRITE, [G], ["rolebindings"])]),
    role("ClusterRole", "t-crb-writer", [rule(WRITE, [G], ["clusterrolebindings"])]),
    role("ClusterRole", "t-role-writer", [rule(WRITE, [G], ["roles"])]),
    role("ClusterRole", "t-cr-writer", [rule(WRITE, [G], ["clusterroles"])]),
    role("ClusterRole", "t-cm-reader", [rule(["get", "list"], [""], ["configmaps"])]),
    role("ClusterRole", "t-secret-getter", [rule(["get"], [""], ["secrets"])]),
    role("ClusterRole", "t-escalate-roles", [rule(["escalate"], [G], ["roles"])]),
    role("ClusterRole", "t-escalate-clusterroles", [rule(["escalate"], [G], ["clusterroles"])]),
    role("ClusterRole", "t-bind-cluster-admin", [rule(["bind"], [G], ["clusterroles"], ["cluster-admin"])]),
  ],
  roleBindings: [
    // mallory may only create RoleBindings in team.
    ["team", binding("RoleBinding", "mallory", "ClusterRole", "t-rb-writer", ["mallory"])],
    // rita writes Roles in team and reads its ConfigMaps.
    ["team", binding("RoleBinding", "rita-roles", "ClusterRole", "t-role-writer", ["rita", "eve"])],
    ["team", binding("RoleBinding", "rita-cm", "ClusterRole", "t-cm-reader", ["rita"])],
    // nadia is the namespace admin of team.
    ["team", binding("RoleBinding", "nadia", "ClusterRole", "admin", ["nadia"])],
    // sam writes RoleBindings in team and other, and reads Secrets in team only.
    ["team", binding("RoleBinding", "sam-rb", "ClusterRole", "t-rb-writer", ["sam", "bart"])],
    ["other", binding("RoleBinding", "sam-rb", "ClusterRole", "t-rb-writer", ["sam", "bart"])],
    ["team", binding("RoleBinding", "sam-secrets", "ClusterRole", "t-secret-getter", ["sam"])],
    // eve may escalate Roles in team; bart may bind cluster-admin in team.
    ["team", binding("RoleBinding", "eve-escalate", "ClusterRole", "t-escalate-roles", ["eve"])],
    ["team", binding("RoleBinding", "bart-bind", "ClusterRole", "t-bind-cluster-admin", ["bart"])],
    // Someone else's powerful binding in team.
    ["team", binding("RoleBinding", "ops-admins", "ClusterRole", "cluster-admin", ["ops"])],
    ["team", binding("RoleBinding", "interns", "ClusterRole", "view", ["intern"])],
  ] as [string, ReturnType<typeof binding>][],
  clusterRoleBindings: [
    binding("ClusterRoleBinding", "t-carol", "ClusterRole", "t-crb-writer", ["carol", "cliff"]),
    binding("ClusterRoleBinding", "t-carol-cm", "ClusterRole", "t-cm-reader", ["carol", "cora"]),
    binding("ClusterRoleBinding", "t-cora", "ClusterRole", "t-cr-writer", ["cora", "ellie"]),
    binding("ClusterRoleBinding", "t-ellie", "ClusterRole", "t-escalate-clusterroles", ["ellie"]),
    binding("ClusterRoleBinding", "t-cliff", "ClusterRole", "t-bind-cluster-admin", ["cliff"]),
  ],
};
const USERS = ["mallory", "rita", "nadia", "sam", "eve", "bart", "carol", "cliff", "cora", "ellie"] as const;
type UserName = (typeof USERS)[number];

void describe("RBAC escalation prevention", { timeout: 180_000 }, () => {
  let dir: string;
  let server: ApiServerProcess;
  let admin: RawClient;
  const clients = new Map<UserName, RawClient>();
  const kubeconfigs = new Map<UserName, string>();
  const as = (u: UserName) => clients.get(u)!;
  const send = (c: RawClient, method: string, path: string, body?: unknown, contentType = "application/json") =>
    c.request({ method, path, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": contentType } }) });
  const created = (res: RawResponse, what: string) => assert.equal(res.status, 201, `${what}: ${res.status} ${res.body.slice(0, 600)}`);
  const refused = (res: RawResponse, what: string, message?: string) => {
    const s = expectStatus(res, 403, "Forbidden", what);
    if (message !== undefined) assert.equal(s.message, message, what);
    return s;
  };

  /** Runs fn while a bystander (the admin) reads a namespace; asserts it was served within 1 s throughout. */
  const served = async (fn: () => Promise<void>) => {
    const bystander = startBystander(server.kubeconfig);
    try {
      await fn();
    } finally {
      assertServedThroughout(await bystander.stop());
    }
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "gapi-rbac-esc-"));
    const tokenFile = writeTokenAuthFile(
      join(dir, "tokens.csv"),
      USERS.map((u) => ({ token: `${u}-token`, user: u, uid: `uid-${u}` })),
    );
    server = await startApiServerProcess({ storage: "sqlite", dataDir: join(dir, "data"), tokenAuthFile: tokenFile });
    admin = rawClient(server.kubeconfig);
    for (const u of USERS) {
      const kc = writeTokenKubeconfig(server.kubeconfig, join(dir, `${u}.kubeconfig`), u, `${u}-token`);
      kubeconfigs.set(u, kc);
      clients.set(u, rawClient(kc));
    }
    for (const ns of ["team", "other"]) created(await send(admin, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }), ns);
    for (const cr of grants.clusterRoles) created(await send(admin, "POST", clusterRoles, cr), cr.metadata.name);
    for (const [ns, rb] of grants.roleBindings) created(await send(admin, "POST", roleBindings(ns), rb), rb.metadata.name);
    for (const crb of grants.clusterRoleBindings) created(await send(admin, "POST", clusterRoleBindings, crb), crb.metadata.name);
    // The authorizer's cache follows the writes through a watch: wait until the last grant of each kind counts.
    await waitAllowed(admin, "cliff", { verb: "bind", group: G, resource: "clusterroles", name: "cluster-admin" });
    await waitAllowed(admin, "intern", { verb: "get", group: "", resource: "configmaps", namespace: "team" });
    await waitAllowed(admin, "nadia", { verb: "create", group: G, resource: "roles", namespace: "team" });
  });
  after(async () => {
    admin?.close();
    for (const c of clients.values()) c.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it("binding an existing powerful role is refused without bind (RoleBinding, ClusterRoleBinding, roleRef to a ClusterRole)", async () => {
    await served(async () => {
      const rb = binding("RoleBinding", "mine", "ClusterRole", "cluster-admin", ["mallory"]);
      refused(await send(as("mallory"), "POST", roleBindings("team"), rb), "mallory binds cluster-admin", `rolebindings.${G} "mine" is forbidden: ${notHeld("mallory")}${CLUSTER_ADMIN_MISSING}`);
      // Nothing was created, and the Secrets stay out of reach.
      expectStatus(await send(admin, "GET", `${roleBindings("team")}/mine`), 404, "NotFound");
      refused(await send(as("mallory"), "GET", "/api/v1/namespaces/team/secrets"), "mallory lists secrets");
      // Neither the namespace's admin role, nor a Role the user cannot see.
      const adminRb = await send(as("mallory"), "POST", roleBindings("team"), binding("RoleBinding", "mine2", "ClusterRole", "admin", ["mallory"]));
      assert.match(refused(adminRb, "mallory binds admin").message!, /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\[/);
      expectStatus(await send(as("mallory"), "POST", roleBindings("team"), binding("RoleBinding", "m3", "Role", "missing", ["mallory"])), 404, "NotFound");

      const crb = binding("ClusterRoleBinding", "t-carol-root", "ClusterRole", "cluster-admin", ["carol"]);
      refused(await send(as("carol"), "POST", clusterRoleBindings, crb), "carol binds cluster-admin cluster-wide", `clusterrolebindings.${G} "t-carol-root" is forbidden: ${notHeld("carol")}${CLUSTER_ADMIN_MISSING}`);
      expectStatus(await send(admin, "GET", `${clusterRoleBindings}/t-carol-root`), 404, "NotFound");
    });
  });

  void it("binding is allowed with bind on that role, in the namespace where bind was granted", async () => {
    // bind is on cluster-admin only: edit's rules are not held.
    refused(await send(as("bart"), "POST", roleBindings("team"), binding("RoleBinding", "bart-edit", "ClusterRole", "edit", ["mallory"])), "bart binds edit");
    created(await send(as("bart"), "POST", roleBindings("team"), binding("RoleBinding", "bart-root", "ClusterRole", "cluster-admin", ["bart"])), "bart binds cluster-admin in team");
    refused(await send(as("bart"), "POST", roleBindings("other"), binding("RoleBinding", "bart-root", "ClusterRole", "cluster-admin", ["bart"])), "bart binds cluster-admin in other");
    created(await send(as("cliff"), "POST", clusterRoleBindings, binding("ClusterRoleBinding", "t-cliff-root", "ClusterRole", "cluster-admin", ["cliff"])), "cliff binds cluster-admin");
  });

  void it("binding is allowed when the rules are held, checked in the binding's namespace", async () => {
    // sam reads Secrets in team, not in other; a RoleBinding to a ClusterRole grants only in its namespace.
    const getter = (ns: string) => send(as("sam"), "POST", roleBindings(ns), binding("RoleBinding", "sam-gives", "ClusterRole", "t-secret-getter", ["mallory"]));
    created(await getter("team"), "sam passes on secrets get in team");
    refused(await getter("other"), "sam passes on secrets get in other", `rolebindings.${G} "sam-gives" is forbidden: ${notHeld("sam")}{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    // The namespace admin may hand out edit and view in their namespace.
    created(await send(as("nadia"), "POST", roleBindings("team"), binding("RoleBinding", "nadia-edit", "ClusterRole", "edit", ["intern"])), "nadia binds edit");
    // carol holds configmaps get/list cluster-wide and may bind that cluster-wide.
    created(await send(as("carol"), "POST", clusterRoleBindings, binding("ClusterRoleBinding", "t-carol-gives", "ClusterRole", "t-cm-reader", ["intern"])), "carol binds cm-reader");
  });

  void it("updating an existing binding's subjects is checked like a create; roleRef cannot change", async () => {
    await served(async () => {
      const path = `${roleBindings("team")}/ops-admins`;
      const merge = { subjects: [user("ops"), user("nadia")] };
      const msg = `rolebindings.${G} "ops-admins" is forbidden: ${notHeld("nadia")}${CLUSTER_ADMIN_MISSING}`;
      refused(await send(as("nadia"), "PATCH", path, merge, "application/merge-patch+json"), "merge patch adds nadia", msg);
      refused(await send(as("nadia"), "PATCH", path, [{ op: "add", path: "/subjects/-", value: user("nadia") }], "application/json-patch+json"), "json patch adds nadia", msg);
      const current = (await send(admin, "GET", path)).json<{ subjects: unknown[] }>();
      refused(await send(as("nadia"), "PUT", path, { ...current, subjects: [...current.subjects, user("nadia")] }), "PUT adds nadia", msg);
      assert.deepEqual((await send(admin, "GET", path)).json<{ subjects: unknown[] }>().subjects, [user("ops")]);
      // Changing the role instead: 422, as Kubernetes.
      const changed = await send(as("nadia"), "PATCH", `${roleBindings("team")}/interns`, { roleRef: { apiGroup: G, kind: "ClusterRole", name: "cluster-admin" } }, "application/merge-patch+json");
      assert.match(expectStatus(changed, 422, "Invalid").message!, /cannot change roleRef/);
      // Subjects of a binding whose rules nadia holds: allowed.
      const ok = await send(as("nadia"), "PATCH", `${roleBindings("team")}/interns`, { subjects: [user("intern"), user("mallory")] }, "application/merge-patch+json");
      assert.equal(ok.status, 200, ok.body);
    });
  });

  void it("creating a wider Role is refused without escalate, allowed with it, and allowed for rules held", async () => {
    await served(async () => {
      const star = role("Role", "star", [rule(["*"], ["*"], ["*"])]);
      for (const u of ["rita", "nadia"] as const) {
        refused(await send(as(u), "POST", roles("team"), star), `${u} creates * on *`, `roles.${G} "star" is forbidden: ${notHeld(u)}{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`);
      }
      created(await send(as("eve"), "POST", roles("team"), star), "eve (escalate) creates * on *");
      // Held rules: rita reads ConfigMaps; the namespace admin may write a Role with Secrets.
      created(await send(as("rita"), "POST", roles("team"), role("Role", "rita-cm", [rule(["get", "list"], [""], ["configmaps"])])), "rita creates a held role");
      created(await send(as("nadia"), "POST", roles("team"), role("Role", "nadia-secrets", [rule(["get", "list", "create"], [""], ["secrets"])])), "nadia creates a held role");
      // Widening that Role by patch or PUT: refused, and the stored Role is unchanged.
      const path = `${roles("team")}/rita-cm`;
      const widen = [{ op: "add", path: "/rules/-", value: rule(["get"], [""], ["secrets"]) }];
      refused(await send(as("rita"), "PATCH", path, widen, "application/json-patch+json"), "rita widens by patch", `roles.${G} "rita-cm" is forbidden: ${notHeld("rita")}{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
      const current = (await send(admin, "GET", path)).json<{ rules: Rule[] }>();
      refused(await send(as("rita"), "PUT", path, { ...current, rules: [...current.rules, rule(["create"], [""], ["configmaps"])] }), "rita widens by PUT");
      assert.deepEqual((await send(admin, "GET", path)).json<{ rules: Rule[] }>().rules, [rule(["get", "list"], [""], ["configmaps"])]);
      // Subresources, resourceNames and wildcards are compared as Kubernetes does.
      refused(await send(as("nadia"), "POST", roles("team"), role("Role", "n1", [rule(["create"], [""], ["*/exec"])])), "*/exec is not pods/exec");
      refused(await send(as("rita"), "POST", roles("team"), role("Role", "r1", [rule(["get"], [""], ["configmaps/status"])])), "a subresource is not its resource");
      created(await send(as("rita"), "POST", roles("team"), role("Role", "r2", [rule(["get"], [""], ["configmaps"], ["one"])])), "a named ConfigMap of held ones");
    });
  });

  void it("a Role whose lists multiply into billions of rules is refused quickly, others served", async () => {
    const many = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const huge = role("Role", "huge", [rule(many("v", 100), many("g", 2000), many("r", 2000), many("n", 100))]);
    await served(async () => {
      const t = performance.now();
      const res = await send(as("rita"), "POST", roles("team"), huge);
      const ms = performance.now() - t;
      const msg = refused(res, "huge role").message!;
      assert.match(msg, /not currently held:\n\{APIGroups:\["g0"\], Resources:\["r0"\], ResourceNames:\["n0"\], Verbs:\["v0" "v1"/);
      assert.match(msg, /\n\.\.\. and \d+ more$/);
      assert.ok(msg.length < 100_000, `message of ${msg.length} characters`);
      assert.ok(ms < 3000, `took ${Math.round(ms)} ms`);
    });
  });

  void it("aggregation is no way around it: labelled roles need the rules, aggregationRule needs cluster-admin or escalate", async () => {
    await served(async () => {
      const toAdmin = { "rbac.authorization.k8s.io/aggregate-to-admin": "true" };
      // A labelled ClusterRole carrying rules cora does not hold would flow into admin (bound to nadia).
      const secrets = role("ClusterRole", "t-more-admin", [rule(["*"], [""], ["secrets"])], {}, toAdmin);
      refused(await send(as("cora"), "POST", clusterRoles, secrets), "cora labels a role into admin", `clusterroles.${G} "t-more-admin" is forbidden: ${notHeld("cora")}{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`);
      // With rules cora holds cluster-wide, labelling is allowed (as in Kubernetes): nothing is gained.
      created(await send(as("cora"), "POST", clusterRoles, role("ClusterRole", "t-cm-to-admin", [rule(["get"], [""], ["configmaps"])], {}, toAdmin)), "cora labels a held role");
      // An aggregationRule can gather anything, e.g. cluster-admin (labelled rbac-defaults).
      const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { "kubernetes.io/bootstrapping": "rbac-defaults" } }] };
      const gather = role("ClusterRole", "t-gather", [], { aggregationRule });
      refused(await send(as("cora"), "POST", clusterRoles, gather), "cora creates an aggregating role", `clusterroles.${G} "t-gather" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
      // Re-pointing the aggregation of a bound role, or labelling cluster-admin into it.
      const repoint = { aggregationRule, rules: [] };
      refused(await send(as("cora"), "PATCH", `${clusterRoles}/admin`, repoint, "application/merge-patch+json"), "cora re-points admin");
      refused(await send(as("cora"), "PATCH", `${clusterRoles}/admin`, { metadata: { labels: { x: "y" } }, rules: [] }, "application/merge-patch+json"), "cora edits admin with empty rules");
      refused(await send(as("cora"), "PATCH", `${clusterRoles}/cluster-admin`, { metadata: { labels: toAdmin } }, "application/merge-patch+json"), "cora labels cluster-admin into admin");
      const stored = (await send(admin, "GET", `${clusterRoles}/cluster-admin`)).json<{ metadata: { labels: Record<string, string> } }>();
      assert.equal(stored.metadata.labels["rbac.authorization.k8s.io/aggregate-to-admin"], undefined);
      // With escalate on clusterroles: both allowed.
      created(await send(as("ellie"), "POST", clusterRoles, gather), "ellie (escalate) creates an aggregating role");
      created(await send(as("ellie"), "POST", clusterRoles, secrets), "ellie (escalate) labels secrets into admin");
    });
  });

  void it("binding an aggregated ClusterRole counts the rules it aggregates", async () => {
    // Right after its creation the role's stored rules may still be empty; it aggregates cluster-admin all the same.
    const gather = role("ClusterRole", "t-gather-2", [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "kubernetes.io/bootstrapping": "rbac-defaults" } }] } });
    created(await send(admin, "POST", clusterRoles, gather), "admin creates an aggregating role");
    const res = await send(as("carol"), "POST", clusterRoleBindings, binding("ClusterRoleBinding", "t-carol-gather", "ClusterRole", "t-gather-2", ["carol"]));
    assert.match(refused(res, "carol binds an aggregating role").message!, /\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/);
  });

  void it("kubectl shows Kubernetes' message", async () => {
    const k = kubectlFor(kubeconfigs.get("nadia")!);
    const rb = await k.run(["create", "rolebinding", "kubectl-root", "--clusterrole=cluster-admin", "--user=nadia", "-n", "team"]);
    assert.equal(rb.code, 1, rb.stdout);
    assert.equal(
      rb.stderr.trim(),
      `error: failed to create rolebinding: rolebindings.${G} "kubectl-root" is forbidden: ${notHeld("nadia")}${CLUSTER_ADMIN_MISSING}`,
    );
    const manifest = `apiVersion: ${G}/v1\nkind: Role\nmetadata:\n  name: kubectl-star\n  namespace: team\nrules:\n- apiGroups: ["*"]\n  resources: ["*"]\n  verbs: ["*"]\n`;
    const apply = await k.run(["apply", "-f", "-"], { input: manifest });
    assert.equal(apply.code, 1, apply.stdout);
    assert.match(apply.stderr, /Error from server \(Forbidden\): .*roles\.rbac\.authorization\.k8s\.io "kubectl-star" is forbidden: user "nadia" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/s);
  });
});

/** Polls a SubjectAccessReview until the server's authorizer allows it (its RBAC cache follows writes by watch). */
async function waitAllowed(admin: RawClient, user: string, a: { verb: string; group: string; resource: string; name?: string; namespace?: string }): Promise<void> {
  const body = JSON.stringify({
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: { user, groups: ["system:authenticated"], resourceAttributes: { verb: a.verb, group: a.group, resource: a.resource, name: a.name, namespace: a.namespace } },
  });
  await eventually(`${user} allowed to ${a.verb} ${a.resource}`, async () => {
    const res = await admin.request({ method: "POST", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews", body, headers: json });
    assert.ok(res.status === 201 && res.json<{ status: { allowed: boolean } }>().status.allowed, `${user} is still not allowed to ${a.verb} ${a.resource}: ${res.body}`);
    return true;
  });
}
