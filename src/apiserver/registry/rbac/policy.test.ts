import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { StatusError } from "../../../apimachinery/errors.ts";
import { FakeClock } from "../../../utils/clock.ts";
import type { AdmissionAttributes } from "../../admission/types.ts";
import type { UserInfo } from "../../authentication/types.ts";
import { MastersAuthorizer } from "../../authorization/masters.ts";
import { RBACAuthorizer } from "../../authorization/rbac.ts";
import { FakeClient } from "../../authorization/testing/fake-client.ts";
import { UnionAuthorizer } from "../../authorization/types.ts";
import { clusterRoleDefinition } from "./clusterrole/definition.ts";
import { onlyGCFieldsChanged, RBACEscalationPrevention } from "./policy.ts";
import { roleDefinition } from "./role/definition.ts";
import { roleBindingDefinition } from "./rolebinding/definition.ts";

const G = "rbac.authorization.k8s.io";
const gr = (resource: string) => ({ group: G, resource });
const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const root: UserInfo = { username: "root", groups: ["system:masters"] };

describe("RBACEscalationPrevention", () => {
  const client = new FakeClient();
  const rbac = new RBACAuthorizer(client, { clock: new FakeClock() });
  const plugin = new RBACEscalationPrevention(() => new UnionAuthorizer([new MastersAuthorizer(), rbac]));
  const wide: KubeObject = { metadata: { name: "wide", namespace: "ns" }, rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] };
  const attrs = (a: Partial<AdmissionAttributes>): AdmissionAttributes => ({
    operation: "CREATE",
    resource: roleDefinition,
    subresource: "",
    namespace: "ns",
    name: "wide",
    object: wide,
    user: alice,
    dryRun: false,
    ...a,
  });
  const refusal = async (a: AdmissionAttributes): Promise<string | undefined> => {
    try {
      await plugin.validate(a, client);
      return undefined;
    } catch (err) {
      assert.ok(err instanceof StatusError && err.code === 403, String(err));
      return err.message;
    }
  };

  before(async () => {
    await client.create(gr("clusterroles"), { metadata: { name: "pods" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    await client.create(gr("rolebindings"), {
      metadata: { name: "alice", namespace: "ns" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "pods" },
      subjects: [{ kind: "User", apiGroup: G, name: "alice" }],
    });
    await rbac.start();
  });
  after(() => rbac.stop());

  it("refuses rules not held, naming them, and lets system:masters through", async () => {
    assert.equal(
      await refusal(attrs({})),
      `roles.${G} "wide" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`,
    );
    assert.equal(await refusal(attrs({ user: root })), undefined);
    const held = { metadata: { name: "held", namespace: "ns" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] };
    assert.equal(await refusal(attrs({ object: held })), undefined);
    // Held in ns, not cluster-wide: a ClusterRole with the same rule is refused.
    assert.match((await refusal(attrs({ resource: clusterRoleDefinition, object: { metadata: { name: "held" }, rules: held.rules } }))) ?? "", /not currently held/);
  });

  it("leaves deletes, subresources and garbage-collector updates of ownerReferences and finalizers alone", async () => {
    assert.equal(await refusal(attrs({ operation: "DELETE", object: undefined, oldObject: wide })), undefined);
    assert.equal(await refusal(attrs({ subresource: "status" })), undefined);
    const gc = { ...wide, metadata: { ...wide.metadata, finalizers: ["x"], ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u" }] } };
    assert.equal(await refusal(attrs({ operation: "UPDATE", object: gc, oldObject: wide })), undefined);
    const labelled = { ...wide, metadata: { ...wide.metadata, labels: { a: "b" } } };
    assert.match((await refusal(attrs({ operation: "UPDATE", object: labelled, oldObject: wide }))) ?? "", /not currently held/);
    assert.equal(onlyGCFieldsChanged(labelled, wide), false);
    assert.equal(onlyGCFieldsChanged({ ...wide, rules: [] }, wide), false);
  });

  it("checks a binding against the stored role it references; a missing role is 404", async () => {
    const rb = (roleName: string, kind = "ClusterRole") => ({
      metadata: { name: "b", namespace: "ns" },
      roleRef: { apiGroup: G, kind, name: roleName },
      subjects: [{ kind: "User", apiGroup: G, name: "bob" }],
    });
    assert.equal(await refusal(attrs({ resource: roleBindingDefinition, object: rb("pods") })), undefined);
    await assert.rejects(async () => plugin.validate(attrs({ resource: roleBindingDefinition, object: rb("gone") }), client), (e: StatusError) => {
      assert.equal(e.code, 404);
      assert.equal(e.message, `clusterroles.${G} "gone" not found`);
      return true;
    });
    await assert.rejects(async () => plugin.validate(attrs({ resource: roleBindingDefinition, object: rb("gone", "Role") }), client), /roles.rbac.authorization.k8s.io "gone" not found/);
  });
});
