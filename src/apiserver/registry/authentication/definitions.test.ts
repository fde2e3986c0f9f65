import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { StatusError } from "../../../apimachinery/errors.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { TokenFileAuthenticator } from "../../authentication/tokenfile.ts";
import type { TokenAuthenticator } from "../../authentication/types.ts";
import { UnionTokenAuthenticator } from "../../authentication/union.ts";
import type { RequestContext } from "../types.ts";
import { authenticationReviewDefinitions } from "./definitions.ts";

const expiring: TokenAuthenticator = {
  authenticateToken: (t) => (t === "expired" ? Promise.reject(new StatusError(401, "Unauthorized", "service account token has expired")) : Promise.resolve(undefined)),
};
const tokens = new UnionTokenAuthenticator([expiring, TokenFileAuthenticator.fromText("good,alice,u1,dev")], { apiAudiences: ["https://garden"] });
const defs = authenticationReviewDefinitions(tokens);
const clock = new FakeClock(Date.UTC(2026, 4, 1));
const ctx: RequestContext = { user: { username: "bob", uid: "7", groups: ["ops", "system:authenticated"], extra: { scopes: ["a"] } }, clock, dryRun: false };
const create = (plural: string, version: string, body: Record<string, unknown>) =>
  defs.find((d) => d.plural === plural && d.version === version)!.virtualCreate!(ctx, { metadata: {}, ...body } as KubeObject);

describe("authentication review definitions", () => {
  it("serves TokenReview in v1 and SelfSubjectReview in v1 and v1beta1, create-only", () => {
    assert.deepEqual(
      defs.map((d) => `${d.version}/${d.plural}`),
      ["v1/tokenreviews", "v1/selfsubjectreviews", "v1beta1/selfsubjectreviews"],
    );
    assert.ok(defs.every((d) => d.verbs?.join() === "create" && !d.namespaced && d.group === "authentication.k8s.io"));
  });

  it("TokenReview reports the user and audiences of a valid token", async () => {
    const r = await create("tokenreviews", "v1", { spec: { token: "good" } });
    assert.equal(r.kind, "TokenReview");
    assert.deepEqual(r.status, {
      authenticated: true,
      user: { username: "alice", uid: "u1", groups: ["dev", "system:authenticated"] },
      audiences: ["https://garden"],
    });
  });

  it("TokenReview reports unknown and invalid tokens without failing the request", async () => {
    assert.deepEqual((await create("tokenreviews", "v1", { spec: { token: "nope" } })).status, { authenticated: false });
    assert.deepEqual((await create("tokenreviews", "v1", { spec: { token: "expired" } })).status, {
      authenticated: false,
      error: "service account token has expired",
    });
    assert.deepEqual((await create("tokenreviews", "v1", { spec: { token: "good", audiences: ["vault"] } })).status, { authenticated: false });
    await assert.rejects(create("tokenreviews", "v1", { spec: {} }), { code: 400, message: "token is required for TokenReview" });
  });

  it("SelfSubjectReview echoes the calling user", async () => {
    const r = await create("selfsubjectreviews", "v1beta1", {});
    assert.equal(r.apiVersion, "authentication.k8s.io/v1beta1");
    assert.equal(r.metadata.creationTimestamp, "2026-05-01T00:00:00Z");
    assert.deepEqual(r.status, { userInfo: { username: "bob", uid: "7", groups: ["ops", "system:authenticated"], extra: { scopes: ["a"] } } });
  });
});
