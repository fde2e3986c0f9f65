import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Project, ProjectMember, ProjectSubject } from "../../apis/gardencore/v1beta1/types.ts";
import type { AdmissionAttributes } from "../../apiserver/admission/types.ts";
import type { AuthorizationAttributes, Authorizer } from "../../apiserver/authorization/types.ts";
import { projectDefinition } from "../../apiserver/registry/gardencore/project/definition.ts";
import { shootDefinition } from "../../apiserver/registry/gardencore/shoot/definition.ts";
import { CustomVerbAuthorizer, isServiceAccountSubject } from "./admission.ts";

const RBAC = "rbac.authorization.k8s.io";
const OWNER = { apiGroup: RBAC, kind: "User" as const, name: "olga" };
const ALICE: ProjectMember = { apiGroup: RBAC, kind: "User", name: "alice", role: "admin" };
const WEBTERMINAL: ProjectMember = { apiGroup: "", kind: "ServiceAccount", name: "dashboard-webterminal", namespace: "garden-p", role: "admin", roles: ["serviceaccountmanager"] };

const project = (members: ProjectMember[], owner: ProjectSubject = OWNER): Project => ({ metadata: { name: "p" }, spec: { namespace: "garden-p", owner, members } });

/** An authorizer that allows `manage-members` to the users named, and records what it was asked. */
function authorizer(managers: string[]) {
  const asked: AuthorizationAttributes[] = [];
  const a: Authorizer = {
    authorize: (attrs) => {
      asked.push(attrs);
      return Promise.resolve({ decision: managers.includes(attrs.user.username) ? "allow" : "noOpinion", reason: "" });
    },
  };
  return { a, asked };
}

function update(user: string, old: Project, now: Project, groups: string[] = []): AdmissionAttributes {
  return { operation: "UPDATE", resource: projectDefinition, subresource: "", name: "p", user: { username: user, groups }, dryRun: false, object: now, oldObject: old };
}

function plugin(managers: string[] = []) {
  const p = new CustomVerbAuthorizer();
  const { a, asked } = authorizer(managers);
  p.setAuthorizer(() => a);
  return { p, asked };
}

describe("CustomVerbAuthorizer", () => {
  it("an admin member without manage-members may add and remove ServiceAccount members, as kind or as user name", async () => {
    const { p, asked } = plugin();
    const before = project([ALICE]);
    await p.validate(update("alice", before, project([ALICE, WEBTERMINAL])));
    await p.validate(update("alice", project([ALICE, WEBTERMINAL]), before));
    await p.validate(update("alice", before, project([ALICE, { apiGroup: RBAC, kind: "User", name: "system:serviceaccount:garden-p:robot", role: "admin" }])));
    assert.equal(asked.length, 0, "no custom verb needed");
  });

  it("adding, removing or re-roling a human user or group needs manage-members on the Project, with Gardener's message", async () => {
    const { p, asked } = plugin();
    const bob: ProjectMember = { apiGroup: RBAC, kind: "User", name: "bob", role: "viewer" };
    const denied = { code: 403, message: 'projects.core.gardener.cloud "p" is forbidden: user "alice" is not allowed to manage human users or groups in .spec.members for "projects"' };
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([ALICE, bob]))), denied);
    await assert.rejects(p.validate(update("alice", project([ALICE, bob]), project([ALICE]))), denied);
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([{ ...ALICE, roles: ["uam"] }]))), denied, "her own roles too");
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([ALICE, { apiGroup: RBAC, kind: "Group", name: "system:serviceaccounts:garden-p", role: "admin" }]))), denied, "a group of ServiceAccounts is no ServiceAccount");
    assert.deepEqual(asked[0], { user: { username: "alice", groups: [] }, verb: "manage-members", resourceRequest: true, apiGroup: "core.gardener.cloud", resource: "projects", name: "p" });
  });

  it("the holder of manage-members and the owner (by name or group) may change human members", async () => {
    const bob: ProjectMember = { apiGroup: RBAC, kind: "User", name: "bob", role: "viewer" };
    const { p, asked } = plugin(["uma"]);
    await p.validate(update("uma", project([ALICE]), project([ALICE, bob])));
    await p.validate(update("olga", project([ALICE]), project([ALICE, bob])));
    await p.validate(update("x", project([ALICE], { apiGroup: RBAC, kind: "Group", name: "owners" }), project([ALICE, bob], { apiGroup: RBAC, kind: "Group", name: "owners" }), ["owners"]));
    assert.deepEqual(asked.map((a) => a.user.username), ["uma"]);
  });

  it("the owner's own member entry is not counted; changing the owner needs manage-members unless the owner does it", async () => {
    const { p } = plugin();
    await p.validate(update("alice", project([ALICE]), project([ALICE, { ...OWNER, role: "owner" }])));
    const other = { apiGroup: RBAC, kind: "User" as const, name: "alice" };
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([ALICE], other))), { code: 403, message: /not allowed to manage owner in \.spec\.owner for "projects"/ });
    await p.validate(update("olga", project([ALICE]), project([ALICE], other)));
  });

  it("who owns the Project comes from the stored one: naming oneself owner in the request grants nothing, also where none is stored", async () => {
    const { p } = plugin();
    const bob: ProjectMember = { apiGroup: RBAC, kind: "User", name: "bob", role: "admin" };
    const alice = { apiGroup: RBAC, kind: "User" as const, name: "alice" };
    const ownerless: Project = { metadata: { name: "p" }, spec: { namespace: "garden-p", members: [ALICE] } };
    await assert.rejects(p.validate(update("alice", ownerless, project([ALICE, bob], alice))), { code: 403, message: /manage human users or groups/ });
    await assert.rejects(p.validate(update("alice", ownerless, project([ALICE], alice))), { code: 403, message: /manage owner in \.spec\.owner/ });
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([ALICE, bob], alice))), { code: 403, message: /manage human users or groups/ });
    await assert.rejects(p.validate(update("alice", ownerless, { ...ownerless, spec: { ...ownerless.spec!, members: [ALICE, bob] } })), { code: 403 }, "no stored owner: nobody is owner");
  });

  it("on create: the first owner needs nothing, human members need manage-members unless the creator is the owner", async () => {
    const { p } = plugin();
    const create = (user: string, now: Project): AdmissionAttributes => ({ operation: "CREATE", resource: projectDefinition, subresource: "", name: "p", user: { username: user, groups: [] }, dryRun: false, object: now });
    await p.validate(create("olga", project([ALICE])));
    await assert.rejects(p.validate(create("mallory", project([ALICE]))), { code: 403 });
    await p.validate(create("mallory", project([WEBTERMINAL])));
  });

  it("fails closed before it has an authorizer; ignores other kinds and status writes", async () => {
    const p = new CustomVerbAuthorizer();
    const bob: ProjectMember = { apiGroup: RBAC, kind: "User", name: "bob", role: "viewer" };
    await assert.rejects(p.validate(update("alice", project([ALICE]), project([ALICE, bob]))), { code: 403, message: /not yet ready to handle request/ });
    await p.validate({ ...update("alice", project([ALICE]), project([ALICE, bob])), resource: shootDefinition });
    await p.validate({ ...update("alice", project([ALICE]), project([ALICE, bob])), subresource: "status" });
  });

  it("ServiceAccount subjects: kind ServiceAccount in the core group, or a User system:serviceaccount:*", () => {
    assert.equal(isServiceAccountSubject({ kind: "ServiceAccount", name: "x", namespace: "n" }), true);
    assert.equal(isServiceAccountSubject({ kind: "ServiceAccount", apiGroup: RBAC, name: "x", namespace: "n" }), false);
    assert.equal(isServiceAccountSubject({ kind: "User", apiGroup: RBAC, name: "system:serviceaccount:n:x" }), true);
    assert.equal(isServiceAccountSubject({ kind: "User", apiGroup: RBAC, name: "alice" }), false);
  });
});
