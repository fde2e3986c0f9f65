import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "../../utils/clock.ts";
import { FakeClient } from "../authorization/testing/fake-client.ts";
import { parsePublicKeys } from "../serviceaccount/jwt.ts";
import { TokenSigner } from "../serviceaccount/signer.ts";
import { buildAuthenticators } from "./config.ts";

describe("buildAuthenticators", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "authn-config-"));
    await writeFile(join(dir, "tokens.csv"), 'static-token,alice,1,"dev"\n');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("wires certificates, the token file and service-account tokens, with anonymous off by default", async () => {
    const clock = new FakeClock();
    const client = new FakeClient();
    const sa = await client.create({ group: "", resource: "serviceaccounts" }, { metadata: { name: "robot", namespace: "ns" } });
    const key = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pub = key.publicKey.export({ type: "spki", format: "pem" }) as string;
    const priv = key.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const issuer = "https://api.local";
    const a = buildAuthenticators({
      tokenAuthFile: join(dir, "tokens.csv"),
      serviceAccounts: { publicKeys: parsePublicKeys(pub), issuers: [issuer], client, clock },
    });
    const signed = await new TokenSigner({ privateKeyPem: priv, issuer, clock }).signBoundToken({
      namespace: "ns",
      serviceAccount: { name: "robot", uid: sa.metadata.uid! },
      audiences: [issuer],
      expirationSeconds: 3600,
    });
    const token = signed.token;

    assert.equal((await a.request.authenticate({ headers: { authorization: "Bearer static-token" } }))?.username, "alice");
    assert.equal((await a.request.authenticate({ headers: { authorization: `Bearer ${token}` } }))?.username, "system:serviceaccount:ns:robot");
    assert.equal((await a.request.authenticate({ headers: {}, peerCertificate: { subject: { CN: "c" } } }))?.username, "c");
    assert.equal(await a.request.authenticate({ headers: {} }), undefined);
    await assert.rejects(a.request.authenticate({ headers: { authorization: "Bearer nope" } }), { code: 401 });
    // TokenReview path: static tokens are valid for the API audiences (the issuer).
    assert.deepEqual((await a.token.authenticateToken("static-token"))?.audiences, [issuer]);

    const anon = buildAuthenticators({ anonymous: true, clientCertificates: false });
    assert.equal((await anon.request.authenticate({ headers: {} }))?.username, "system:anonymous");
    assert.equal(await anon.request.authenticate({ headers: {}, peerCertificate: { subject: { CN: "c" } } }).then((u) => u?.username), "system:anonymous");
  });
});
