import { generateKeyPairSync, sign } from "node:crypto";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { algForKey, decodeJwt, keyId, parsePublicKeys, signJwt, verifyJwtSignature } from "./jwt.ts";

describe("jwt", () => {
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });

  it("signs ES256 with EC keys and RS256 with RSA keys, and verifies", async () => {
    for (const [pair, alg] of [
      [ec, "ES256"],
      [rsa, "RS256"],
    ] as const) {
      const token = await signJwt({ sub: "x", n: 1 }, pair.privateKey);
      const jwt = decodeJwt(token)!;
      assert.equal(jwt.header.alg, alg);
      assert.equal(jwt.header.kid, keyId(pair.publicKey));
      assert.deepEqual(jwt.claims, { sub: "x", n: 1 });
      assert.equal(await verifyJwtSignature(jwt, [pair.publicKey]), true);
    }
    // ES256 signatures are raw r||s (64 bytes), not DER.
    const [, , sig] = (await signJwt({}, ec.privateKey)).split(".");
    assert.equal(Buffer.from(sig!, "base64url").length, 64);
  });

  it("writes the header as {alg, kid} and the claims' JSON in their order, unpadded base64url", async () => {
    const claims = { iss: "https://i", "kubernetes.io": { namespace: "n" }, aud: ["a"], exp: 2 };
    const [h, p] = (await signJwt(claims, ec.privateKey, "k1")).split(".");
    assert.equal(Buffer.from(h!, "base64url").toString(), '{"alg":"ES256","kid":"k1"}');
    assert.equal(Buffer.from(p!, "base64url").toString(), JSON.stringify(claims));
    assert.doesNotMatch(`${h}${p}`, /[=+/]/);
  });

  it("verifies a token signed by node:crypto the way kube-apiserver signs (RS256, PKCS#1 v1.5)", async () => {
    const input = `${Buffer.from('{"alg":"RS256","kid":"' + keyId(rsa.publicKey) + '"}').toString("base64url")}.${Buffer.from('{"sub":"s"}').toString("base64url")}`;
    const token = `${input}.${sign("sha256", Buffer.from(input), rsa.privateKey).toString("base64url")}`;
    assert.equal(await verifyJwtSignature(decodeJwt(token)!, [rsa.publicKey]), true);
  });

  it("rejects tampered payloads, foreign keys and alg substitution", async () => {
    const token = await signJwt({ sub: "alice" }, ec.privateKey);
    const [h, , s] = token.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "admin" })).toString("base64url")}.${s}`;
    assert.equal(await verifyJwtSignature(decodeJwt(forged)!, [ec.publicKey]), false);
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" });
    assert.equal(await verifyJwtSignature(decodeJwt(token)!, [other.publicKey]), false);
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${token.split(".")[1]}.`;
    assert.equal(await verifyJwtSignature(decodeJwt(none)!, [ec.publicKey]), false);
    // An RS256 header cannot be verified with an EC key.
    const rsToken = await signJwt({ sub: "a" }, rsa.privateKey);
    assert.equal(await verifyJwtSignature(decodeJwt(rsToken)!, [ec.publicKey]), false);
  });

  it("decodes only well-formed JWS", () => {
    assert.equal(decodeJwt("opaque-static-token"), undefined);
    assert.equal(decodeJwt("a.b.c"), undefined);
    assert.equal(decodeJwt("a.b"), undefined);
  });

  it("reads public keys from public, private and certificate PEM blocks", () => {
    const pem =
      (ec.publicKey.export({ type: "spki", format: "pem" }) as string) + (rsa.privateKey.export({ type: "pkcs1", format: "pem" }) as string);
    const keys = parsePublicKeys(pem);
    assert.deepEqual(keys.map(algForKey), ["ES256", "RS256"]);
    assert.equal(keys[1]!.type, "public");
    assert.throws(() => parsePublicKeys("nothing here"), /no public keys/);
  });
});
