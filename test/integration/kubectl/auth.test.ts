// Real kubectl and authorization: `auth can-i` (admin, token users with Roles, impersonation),
// Forbidden/Unauthorized messages, `auth whoami`, and `create token` for service accounts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { writeTokenAuthFile, writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { parseTable, rowWhere } from "../../support/table.ts";
import { namespaceYaml, roleYaml } from "./manifests.ts";

const ns = "team";

function binding(name: string, roleKind: "Role" | "ClusterRole", role: string, subject: string): string {
  const [kind, subjectName] = subject.split(":") as [string, string];
  const sub =
    kind === "ServiceAccount"
      ? `- kind: ServiceAccount\n  name: ${subjectName}\n  namespace: ${ns}`
      : `- kind: ${kind}\n  apiGroup: rbac.authorization.k8s.io\n  name: ${subjectName}`;
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${name}
  namespace: ${ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ${roleKind}
  name: ${role}
subjects:
${sub}
`;
}

const extraRbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: secret-reader
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: one-configmap
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  resourceNames: ["visible"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lease-editor
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "update"]
`;

function jwtClaims(token: string): Record<string, unknown> {
  const parts = token.split(".");
  assert.equal(parts.length, 3, `not a JWT: ${token}`);
  return JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
}

void describe("kubectl auth", { timeout: 180_000 }, () => {
  let dir: string;
  let server: ApiServerProcess;
  let admin: Kubectl;
  const as = (user: string, token: string, version: KubectlVersion): Kubectl =>
    kubectlFor(writeTokenKubeconfig(server.kubeconfig, join(dir, `${user}.kubeconfig`), user, token), version);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "gapi-auth-"));
    const tokenFile = writeTokenAuthFile(join(dir, "tokens.csv"), [
      { token: "alice-token", user: "alice", uid: "uid-alice", groups: ["devs"] },
      { token: "bob-token", user: "bob", uid: "uid-bob" },
    ]);
    server = await startApiServerProcess({ storage: "sqlite", dataDir: join(dir, "data"), tokenAuthFile: tokenFile });
    admin = kubectlFor(server.kubeconfig);
    const manifests = [
      namespaceYaml(ns),
      roleYaml(ns, "cm-reader", ["get", "list", "watch"]),
      binding("alice-reads", "Role", "cm-reader", "User:alice"),
      extraRbac,
      binding("devs-secrets", "Role", "secret-reader", "Group:devs"),
      binding("bob-one", "Role", "one-configmap", "User:bob"),
      binding("bob-leases", "ClusterRole", "lease-editor", "User:bob"),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: visible\n  namespace: ${ns}\ndata:\n  a: b\n`,
    ];
    await admin.ok(["create", "-f", "-"], { input: manifests.join("---\n") });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // kubectl >= 1.32 sends the typed-client requests of these commands (can-i, whoami, create token,
  // create <kind>) as protobuf; 1.27 sends JSON. Both must work.
  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    const suffix = version.replace(".", "-");
    const canI = async (who: Kubectl, args: string[]): Promise<string> => {
      const r = await who.run(["auth", "can-i", ...args]);
      const answer = r.stdout.trim();
      assert.ok(answer === "yes" || answer === "no", `can-i ${args.join(" ")}: code ${r.code}, stdout ${JSON.stringify(r.stdout)}, stderr ${r.stderr}`);
      assert.equal(r.code, answer === "yes" ? 0 : 1, `can-i ${args.join(" ")}: exit code`);
      return answer;
    };

    void it(`${version}: can-i as the admin (system:masters) is yes for everything`, async () => {
      const a = kubectlFor(server.kubeconfig, version);
      assert.equal(await canI(a, ["create", "configmaps", "-n", ns]), "yes");
      assert.equal(await canI(a, ["*", "*", "--all-namespaces"]), "yes");
    });

    void it(`${version}: can-i as token users follows their Roles, RoleBindings and groups`, async () => {
      const alice = as("alice", "alice-token", version);
      const bob = as("bob", "bob-token", version);
      assert.equal(await canI(alice, ["get", "configmaps", "-n", ns]), "yes");
      assert.equal(await canI(alice, ["watch", "configmaps", "-n", ns]), "yes");
      assert.equal(await canI(alice, ["create", "configmaps", "-n", ns]), "no");
      assert.equal(await canI(alice, ["get", "configmaps", "-n", "default"]), "no");
      assert.equal(await canI(alice, ["get", "secrets", "-n", ns]), "yes", "granted through the group devs");
      assert.equal(await canI(bob, ["get", "secrets", "-n", ns]), "no");
      assert.equal(await canI(bob, ["get", "configmaps/visible", "-n", ns]), "yes");
      assert.equal(await canI(bob, ["get", "configmaps/hidden", "-n", ns]), "no");
      assert.equal(await canI(bob, ["create", "leases.coordination.k8s.io", "-n", ns]), "yes");
      assert.equal(await canI(bob, ["create", "leases.coordination.k8s.io", "-n", "default"]), "no", "a RoleBinding to a ClusterRole grants only in its namespace");
    });

    void it(`${version}: can-i --as impersonates another user`, async () => {
      const a = kubectlFor(server.kubeconfig, version);
      assert.equal(await canI(a, ["get", "configmaps", "-n", ns, "--as", "alice"]), "yes");
      assert.equal(await canI(a, ["delete", "configmaps", "-n", ns, "--as", "alice"]), "no");
    });

    void it(`${version}: can-i --list shows a user's rules`, async () => {
      const t = parseTable(await as("alice", "alice-token", version).ok(["auth", "can-i", "--list", "-n", ns]));
      assert.deepEqual(t.header, ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"]);
      assert.equal(rowWhere(t, "Resources", "configmaps").Verbs, "[get list watch]");
      assert.equal(rowWhere(t, "Resources", "secrets").Verbs, "[get]");
    });

    void it(`${version}: requests are allowed or Forbidden with kube's message; a bad token is Unauthorized`, async () => {
      const alice = as("alice", "alice-token", version);
      const bob = as("bob", "bob-token", version);
      assert.match(await alice.ok(["get", "cm", "-n", ns]), /^visible\s+1\s/m);
      const create = await alice.run(["create", "-f", "-"], { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: ${ns}\n` });
      assert.equal(create.code, 1);
      assert.match(create.stderr, /Error from server \(Forbidden\): .*configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"/);
      const typed = await alice.run(["create", "configmap", "y", "-n", ns, "--from-literal=a=b"]);
      assert.equal(typed.code, 1);
      assert.match(typed.stderr, /configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"/);
      const all = await alice.run(["get", "cm", "-A"]);
      assert.equal(all.code, 1);
      assert.match(all.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope/);
      const hidden = await bob.run(["get", "cm", "hidden", "-n", ns]);
      assert.match(hidden.stderr, /configmaps "hidden" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "team"/);
      assert.equal((await bob.ok(["get", "cm", "visible", "-n", ns, "-o", "name"])).trim(), "configmap/visible");
      const r = await as("nobody", "not-a-token", version).run(["get", "cm", "-n", ns]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
    });

    void it(`${version}: auth whoami shows the token user and the admin's groups`, async () => {
      const t = parseTable(await as("alice", "alice-token", version).ok(["auth", "whoami"]));
      assert.deepEqual(t.header, ["ATTRIBUTE", "VALUE"]);
      assert.equal(rowWhere(t, "ATTRIBUTE", "Username").VALUE, "alice");
      assert.equal(rowWhere(t, "ATTRIBUTE", "UID").VALUE, "uid-alice");
      assert.equal(rowWhere(t, "ATTRIBUTE", "Groups").VALUE, "[devs system:authenticated]");
      const me = await kubectlFor(server.kubeconfig, version).json<{ kind: string; status: { userInfo: { username: string; groups: string[] } } }>(["auth", "whoami"]);
      assert.equal(me.kind, "SelfSubjectReview");
      assert.ok(me.status.userInfo.groups.includes("system:masters"), JSON.stringify(me));
    });

    void it(`${version}: create configmap/serviceaccount/token: a token authenticates until its account is deleted`, async () => {
      const a = kubectlFor(server.kubeconfig, version);
      const robot = `robot-${suffix}`;
      assert.equal((await a.ok(["create", "configmap", `typed-${suffix}`, "-n", ns, "--from-literal=k=v"])).trim(), `configmap/typed-${suffix} created`);
      assert.deepEqual((await a.json<{ data: Record<string, string> }>(["get", "cm", `typed-${suffix}`, "-n", ns])).data, { k: "v" });
      assert.equal((await a.ok(["create", "serviceaccount", robot, "-n", ns])).trim(), `serviceaccount/${robot} created`);
      const token = (await a.ok(["create", "token", robot, "-n", ns, "--duration=10m"])).trim();
      const claims = jwtClaims(token);
      assert.equal(claims.sub, `system:serviceaccount:team:${robot}`);
      assert.equal(Number(claims.exp) - Number(claims.iat), 600);
      // A token for another audience is not meant for the API server, which must refuse it.
      const foreign = (await a.ok(["create", "token", robot, "-n", ns, "--audience=robots"])).trim();
      assert.deepEqual(jwtClaims(foreign).aud, ["robots"]);
      assert.match((await as(`${robot}-foreign`, foreign, version).run(["get", "cm", "-n", ns])).stderr, /Unauthorized/);

      const r = as(robot, token, version);
      const who = await r.json<{ status: { userInfo: { username: string; groups: string[] } } }>(["auth", "whoami"]);
      assert.equal(who.status.userInfo.username, `system:serviceaccount:team:${robot}`);
      for (const g of ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]) {
        assert.ok(who.status.userInfo.groups.includes(g), `missing group ${g}: ${who.status.userInfo.groups.join(",")}`);
      }
      assert.equal(await canI(r, ["list", "configmaps", "-n", ns]), "no");
      await admin.ok(["create", "-f", "-"], { input: binding(`${robot}-reads`, "Role", "cm-reader", `ServiceAccount:${robot}`) });
      assert.equal(await canI(r, ["list", "configmaps", "-n", ns]), "yes");

      await a.ok(["delete", "serviceaccount", robot, "-n", ns]);
      const after = await r.run(["get", "cm", "-n", ns]);
      assert.equal(after.code, 1);
      assert.match(after.stderr, /Unauthorized/, "a token of a deleted service account must stop working");
    });
  }
});
