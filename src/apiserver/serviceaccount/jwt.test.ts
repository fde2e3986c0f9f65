import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { algForKey, decodeJwt, keyId, parsePublicKeys, signJwt, verifyJwtSignature } from "./jwt.ts";

describe("jwt", () => {
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });

  it("signs ES256 with EC keys and RS256 with RSA keys, and verifies", () => {
    for (const [pair, alg] of [
      [ec, "ES256"],
      [rsa, "RS256"],
    ] as const) {
      const token = signJwt({ sub: "x", n: 1 }, pair.privateKey);
      const jwt = decodeJwt(token)!;
      assert.equal(jwt.header.alg, alg);
      assert.equal(jwt.header.kid, keyId(pair.publicKey));
      assert.deepEqual(jwt.claims, { sub: "x", n: 1 });
      assert.equal(verifyJwtSignature(jwt, [pair.publicKey]), true);
    }
    // ES256 signatures are raw r||s (64 bytes), not DER.
    assert.equal(decodeJwt(signJwt({}, ec.privateKey))!.signature.length, 64);
  });

  it("rejects tampered payloads, foreign keys and alg substitution", () => {
    const token = signJwt({ sub: "alice" }, ec.privateKey);
    const [h, , s] = token.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "admin" })).toString("base64url")}.${s}`;
    assert.equal(verifyJwtSignature(decodeJwt(forged)!, [ec.publicKey]), false);
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" });
    assert.equal(verifyJwtSignature(decodeJwt(token)!, [other.publicKey]), false);
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${token.split(".")[1]}.`;
    assert.equal(verifyJwtSignature(decodeJwt(none)!, [ec.publicKey]), false);
    // An RS256 header cannot be verified with an EC key.
    const rsToken = signJwt({ sub: "a" }, rsa.privateKey);
    assert.equal(verifyJwtSignature(decodeJwt(rsToken)!, [ec.publicKey]), false);
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
