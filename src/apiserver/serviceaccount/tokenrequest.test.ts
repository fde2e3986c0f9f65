import { generateKeyPairSync } from "node:crypto";
import { beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { TokenRequest } from "../../apis/authentication/v1/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import { ServiceAccountTokenAuthenticator } from "../authentication/serviceaccount.ts";
import { FakeClient } from "../authorization/testing/fake-client.ts";
import type { SubresourceHandler } from "../registry/types.ts";
import { TokenSigner } from "./signer.ts";
import { tokenRequestSubresource } from "./tokenrequest.ts";

const ISSUER = "https://garden.local";
const SA = { group: "", resource: "serviceaccounts" };
const PODS = { group: "", resource: "pods" };

describe("serviceaccounts/token", () => {
  const key = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  let clock: FakeClock;
  let client: FakeClient;
  let signer: TokenSigner;
  let handler: SubresourceHandler;
  const post = async (name: string, body: unknown, dryRun = false) =>
    handler.handle!({
      ctx: { user: { username: "admin", groups: [] }, namespace: "ns1", clock, dryRun },
      verb: "create",
      namespace: "ns1",
      name,
      query: new URLSearchParams(),
      body,
    });

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    client = new FakeClient();
    signer = new TokenSigner({ privateKeyPem: key, issuer: ISSUER, clock });
    handler = tokenRequestSubresource(signer, client);
    await client.create(SA, { metadata: { name: "robot", namespace: "ns1" } });
  });

  it("answers 201 with a token that the authenticator accepts, defaulting audiences and an hour", async () => {
    const r = await post("robot", { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    assert.equal(r.status, 201);
    const tr = r.body as TokenRequest;
    assert.equal(tr.kind, "TokenRequest");
    assert.deepEqual(tr.spec.audiences, [ISSUER]);
    assert.equal(tr.spec.expirationSeconds, 3600);
    assert.equal(tr.status?.expirationTimestamp, "2026-03-01T13:00:00Z");
    const authn = new ServiceAccountTokenAuthenticator({ publicKeys: [signer.publicKey], issuers: [ISSUER], client, clock });
    const u = await authn.authenticateToken(tr.status!.token);
    assert.equal(u?.user.username, "system:serviceaccount:ns1:robot");
    assert.deepEqual(handler.responseKind, { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" });
  });

  it("404s for a missing service account", async () => {
    await assert.rejects(post("ghost", { spec: {} }), { code: 404, message: 'serviceaccounts "ghost" not found' });
  });

  it("rejects an expiration under 10 minutes with 422", async () => {
    await assert.rejects(post("robot", { spec: { expirationSeconds: 599 } }), {
      code: 422,
      reason: "Invalid",
      message: 'TokenRequest.authentication.k8s.io "robot" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    });
    const ok = await post("robot", { spec: { expirationSeconds: 600, audiences: ["vault"] } });
    assert.deepEqual((ok.body as TokenRequest).spec.audiences, ["vault"]);
  });

  it("binds to a pod (checking its uid) and the token dies with the pod", async () => {
    const pod = await client.create(PODS, { metadata: { name: "p", namespace: "ns1" }, spec: { serviceAccountName: "robot" } });
    const ref = { apiVersion: "v1", kind: "Pod", name: "p" };
    const tr = (await post("robot", { spec: { boundObjectRef: ref } })).body as TokenRequest;
    assert.equal(tr.spec.boundObjectRef?.uid, pod.metadata.uid);
    await assert.rejects(post("robot", { spec: { boundObjectRef: { ...ref, uid: "other" } } }), { code: 409 });
    await assert.rejects(post("robot", { spec: { boundObjectRef: { ...ref, name: "nope" } } }), { code: 404, message: 'pods "nope" not found' });
    await assert.rejects(post("robot", { spec: { boundObjectRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" } } }), {
      code: 400,
      message: 'cannot bind token for serviceaccount "robot" to object of type apps/v1, Kind=Deployment',
    });
    const authn = new ServiceAccountTokenAuthenticator({ publicKeys: [signer.publicKey], issuers: [ISSUER], client, clock });
    assert.ok(await authn.authenticateToken(tr.status!.token));
    await client.delete(PODS, "ns1", "p");
    await assert.rejects(authn.authenticateToken(tr.status!.token), { code: 401 });
  });

  it("issues no token for a dry run", async () => {
    const r = await post("robot", { spec: {} }, true);
    assert.equal((r.body as TokenRequest).status, undefined);
  });
});
