import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "../../utils/clock.ts";
import { FakeClient } from "../authorization/testing/fake-client.ts";
import { TokenSigner } from "../serviceaccount/signer.ts";
import { ServiceAccountTokenAuthenticator } from "./serviceaccount.ts";

const ISSUER = "https://garden.local";
const SA = { group: "", resource: "serviceaccounts" };
const PODS = { group: "", resource: "pods" };
const SECRETS = { group: "", resource: "secrets" };
const pem = (k: { privateKey: import("node:crypto").KeyObject }) => k.privateKey.export({ type: "pkcs8", format: "pem" }) as string;

describe("ServiceAccountTokenAuthenticator", () => {
  const keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  let clock: FakeClock;
  let client: FakeClient;
  let signer: TokenSigner;
  let authn: ServiceAccountTokenAuthenticator;
  let saUid: string;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    client = new FakeClient();
    signer = new TokenSigner({ privateKeyPem: pem(keys), issuer: ISSUER, clock });
    authn = new ServiceAccountTokenAuthenticator({ publicKeys: [createPublicKey(keys.privateKey)], issuers: [ISSUER], client, clock });
    const sa = await client.create(SA, { metadata: { name: "robot", namespace: "garden-dev" } });
    saUid = sa.metadata.uid!;
  });

  const issue = async (over: Partial<Parameters<TokenSigner["signBoundToken"]>[0]> = {}) =>
    (
      await signer.signBoundToken({
        namespace: "garden-dev",
        serviceAccount: { name: "robot", uid: saUid },
        audiences: [ISSUER],
        expirationSeconds: 3600,
        ...over,
      })
    ).token;

  it("authenticates a bound token as the service account with its groups", async () => {
    const r = await authn.authenticateToken(await issue());
    assert.equal(r?.user.username, "system:serviceaccount:garden-dev:robot");
    assert.equal(r?.user.uid, saUid);
    assert.deepEqual(r?.user.groups, ["system:serviceaccounts", "system:serviceaccounts:garden-dev", "system:authenticated"]);
    assert.deepEqual(r?.audiences, [ISSUER]);
    assert.match(r!.user.extra!["authentication.kubernetes.io/credential-id"]![0]!, /^JTI=/);
  });

  it("rejects expired tokens (after a minute of leeway) with 401", async () => {
    const token = await issue({ expirationSeconds: 600 });
    clock.step(600_000 + 59_000);
    assert.ok(await authn.authenticateToken(token));
    clock.step(2_000);
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: "service account token has expired" });
  });

  it("has no opinion on tokens of other issuers or non-JWT tokens", async () => {
    const other = new TokenSigner({ privateKeyPem: pem(keys), issuer: "https://elsewhere", clock });
    const t = await other.signBoundToken({ namespace: "garden-dev", serviceAccount: { name: "robot", uid: saUid }, audiences: [ISSUER], expirationSeconds: 3600 });
    assert.equal(await authn.authenticateToken(t.token), undefined);
    assert.equal(await authn.authenticateToken("static-token"), undefined);
  });

  it("rejects a wrong audience, and honours requested audiences", async () => {
    const token = await issue({ audiences: ["vault"] });
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: /token audiences \["vault"\] is invalid for the target audiences \["https:\/\/garden.local"\]/ });
    const r = await authn.authenticateToken(token, ["other", "vault"]);
    assert.deepEqual(r?.audiences, ["vault"]);
  });

  it("rejects a tampered signature and a token signed by another key", async () => {
    const token = await issue();
    const [h, p, s] = token.split(".");
    const sig = Buffer.from(s!, "base64url");
    sig[5] = sig[5]! ^ 0xff;
    await assert.rejects(authn.authenticateToken(`${h}.${p}.${sig.toString("base64url")}`), { code: 401, message: /signature is invalid/ });
    const stranger = new TokenSigner({ privateKeyPem: pem(generateKeyPairSync("ec", { namedCurve: "P-256" })), issuer: ISSUER, clock });
    const t = await stranger.signBoundToken({ namespace: "garden-dev", serviceAccount: { name: "robot", uid: saUid }, audiences: [ISSUER], expirationSeconds: 3600 });
    await assert.rejects(authn.authenticateToken(t.token), { code: 401 });
  });

  it("rejects tokens of a deleted or re-created service account", async () => {
    const token = await issue();
    await client.delete(SA, "garden-dev", "robot");
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: "service account garden-dev/robot has been deleted" });
    await client.create(SA, { metadata: { name: "robot", namespace: "garden-dev" } });
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: /does not match claim/ });
  });

  it("checks the bound pod and adds its name and uid as extra", async () => {
    const pod = await client.create(PODS, { metadata: { name: "p1", namespace: "garden-dev" } });
    const token = await issue({ pod: { name: "p1", uid: pod.metadata.uid! } });
    const r = await authn.authenticateToken(token);
    assert.deepEqual(r?.user.extra?.["authentication.kubernetes.io/pod-name"], ["p1"]);
    await client.delete(PODS, "garden-dev", "p1");
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: "pod garden-dev/p1 has been deleted" });
  });

  it("accepts legacy secret-based tokens only while the secret holds the token", async () => {
    const token = await signer.signLegacyToken("garden-dev", { name: "robot", uid: saUid }, "robot-token");
    await client.create(SECRETS, { metadata: { name: "robot-token", namespace: "garden-dev" }, data: { token: Buffer.from(token).toString("base64") } });
    const r = await authn.authenticateToken(token);
    assert.equal(r?.user.username, "system:serviceaccount:garden-dev:robot");
    await client.delete(SECRETS, "garden-dev", "robot-token");
    await assert.rejects(authn.authenticateToken(token), { code: 401, message: /secret garden-dev\/robot-token has been deleted/ });
    const strict = new ServiceAccountTokenAuthenticator({ publicKeys: [signer.publicKey], issuers: [ISSUER], client, clock, legacy: false });
    assert.equal(await strict.authenticateToken(token), undefined);
  });
});
