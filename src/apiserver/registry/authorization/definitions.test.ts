import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../utils/clock.ts";
import type { UserInfo } from "../../authentication/types.ts";
import { MastersAuthorizer } from "../../authorization/masters.ts";
import { type AuthorizationAttributes, type Authorizer, UnionAuthorizer } from "../../authorization/types.ts";
import type { RequestContext, ResourceDefinition } from "../types.ts";
import { authorizationReviewDefinitions } from "./definitions.ts";

const jane: UserInfo = { username: "jane", groups: ["devs", "system:authenticated"] };
const seen: AuthorizationAttributes[] = [];
/** Allows jane (or group devs) to get secrets in ns1 and GET /healthz. */
const authz: Authorizer = {
  authorize(a) {
    seen.push(a);
    const who = a.user.username === "jane" || a.user.groups.includes("devs");
    const ok = who && (a.resourceRequest ? a.verb === "get" && a.resource === "secrets" && a.namespace === "ns1" : a.path === "/healthz");
    return Promise.resolve(ok ? { decision: "allow", reason: "test: allowed" } : { decision: "noOpinion", reason: "" });
  },
};

const defs = authorizationReviewDefinitions(new UnionAuthorizer([new MastersAuthorizer(), authz]));
const def = (plural: string) => defs.find((d) => d.plural === plural)!;
const ctx = (user: UserInfo, namespace?: string): RequestContext => ({ user, namespace, clock: new FakeClock(), dryRun: false });
const create = (d: ResourceDefinition, c: RequestContext, body: Record<string, unknown>) => d.virtualCreate!(c, { metadata: {}, ...body } as KubeObject);

describe("authorization review definitions", () => {
  it("are create-only, unstored, with the right scope", () => {
    assert.deepEqual(
      defs.map((d) => [d.kind, d.plural, d.namespaced]),
      [
        ["SelfSubjectAccessReview", "selfsubjectaccessreviews", false],
        ["SubjectAccessReview", "subjectaccessreviews", false],
        ["LocalSubjectAccessReview", "localsubjectaccessreviews", true],
        ["SelfSubjectRulesReview", "selfsubjectrulesreviews", false],
      ],
    );
    for (const d of defs) {
      assert.deepEqual(d.verbs, ["create"]);
      assert.equal(d.group, "authorization.k8s.io");
      assert.equal(d.hasStatus, false);
      assert.equal(d.strategicMergePatch, false);
    }
  });

  it("SelfSubjectAccessReview answers for the calling user", async () => {
    const spec = { resourceAttributes: { namespace: "ns1", verb: "get", resource: "secrets", name: "s" } };
    const r = (await create(def("selfsubjectaccessreviews"), ctx(jane), { spec })) as KubeObject & { status: unknown };
    assert.equal(r.apiVersion, "authorization.k8s.io/v1");
    assert.equal(r.kind, "SelfSubjectAccessReview");
    assert.deepEqual(r.spec, spec);
    assert.deepEqual(r.status, { allowed: true, reason: "test: allowed" });
    assert.deepEqual(
      { ...seen.at(-1)!, user: seen.at(-1)!.user.username },
      { user: "jane", verb: "get", resourceRequest: true, apiGroup: "", apiVersion: "", resource: "secrets", subresource: "", namespace: "ns1", name: "s" },
    );
    const other = await create(def("selfsubjectaccessreviews"), ctx({ username: "x", groups: [] }), { spec });
    assert.deepEqual(other.status, { allowed: false });
    const path = await create(def("selfsubjectaccessreviews"), ctx(jane), { spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } } });
    assert.equal((path.status as { allowed: boolean }).allowed, true);
  });

  it("validates that exactly one of resource and non-resource attributes is given", async () => {
    await assert.rejects(create(def("selfsubjectaccessreviews"), ctx(jane), { spec: {} }), {
      code: 422,
      message: /SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified/,
    });
    await assert.rejects(create(def("selfsubjectaccessreviews"), ctx(jane), { spec: { resourceAttributes: {}, nonResourceAttributes: {} } }), {
      code: 422,
      message: /spec.nonResourceAttributes: Invalid value: .*cannot be specified in combination with resourceAttributes/,
    });
  });

  it("SubjectAccessReview evaluates the user in spec (not the caller) and requires a user or groups", async () => {
    const admin = { username: "system:admin", groups: ["system:masters"] };
    const r = await create(def("subjectaccessreviews"), ctx(admin), {
      spec: { user: "bob", groups: ["devs"], resourceAttributes: { namespace: "ns1", verb: "get", resource: "secrets" } },
    });
    assert.deepEqual(r.status, { allowed: true, reason: "test: allowed" });
    const denied = await create(def("subjectaccessreviews"), ctx(admin), { spec: { user: "bob", resourceAttributes: { namespace: "ns2", verb: "get", resource: "secrets" } } });
    assert.deepEqual(denied.status, { allowed: false });
    await assert.rejects(create(def("subjectaccessreviews"), ctx(admin), { spec: { resourceAttributes: { verb: "get" } } }), {
      code: 422,
      message: /spec.user: Invalid value: "": at least one of user or group must be specified/,
    });
  });

  it("LocalSubjectAccessReview must stay in the URL's namespace and be resource-only", async () => {
    const r = await create(def("localsubjectaccessreviews"), ctx(jane, "ns1"), {
      metadata: { namespace: "ns1" },
      spec: { user: "bob", groups: ["devs"], resourceAttributes: { namespace: "ns1", verb: "get", resource: "secrets" } },
    });
    assert.equal((r.status as { allowed: boolean }).allowed, true);
    assert.equal(r.metadata.namespace, "ns1");
    await assert.rejects(
      create(def("localsubjectaccessreviews"), ctx(jane, "ns1"), { spec: { user: "bob", resourceAttributes: { namespace: "ns2", verb: "get" } } }),
      { code: 422, message: /spec.resourceAttributes.namespace: Invalid value: "ns2": must match metadata.namespace/ },
    );
    await assert.rejects(create(def("localsubjectaccessreviews"), ctx(jane, "ns1"), { metadata: { namespace: "ns2" }, spec: { user: "b", resourceAttributes: {} } }), {
      code: 400,
    });
  });

  it("SelfSubjectRulesReview lists the caller's rules and requires a namespace", async () => {
    const root = { username: "system:admin", groups: ["system:masters"] };
    const r = await create(def("selfsubjectrulesreviews"), ctx(root), { spec: { namespace: "default" } });
    assert.deepEqual(r.status, {
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
    await assert.rejects(create(def("selfsubjectrulesreviews"), ctx(root), { spec: {} }), { code: 400, message: "no namespace on request" });
    const plain = authorizationReviewDefinitions(authz).find((d) => d.plural === "selfsubjectrulesreviews")!;
    const inc = await create(plain, ctx(jane), { spec: { namespace: "x" } });
    assert.equal((inc.status as { incomplete: boolean }).incomplete, true);
  });
});
