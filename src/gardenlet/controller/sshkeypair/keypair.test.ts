import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type KeyPair, generateRSAKeyPair, keyPairData, keyPairOf, keyPairProblem, openSSHPublicKey } from "./keypair.ts";

describe("node key pair material", () => {
  let dir: string;
  let pair: KeyPair;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "keypair-test-"));
    pair = await generateRSAKeyPair();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes an ssh-rsa line that ssh-keygen reads as a 4096-bit RSA key", () => {
    assert.match(pair.publicKey, /^ssh-rsa [A-Za-z0-9+/]+={0,2}$/);
    const pub = join(dir, "id_rsa.pub");
    writeFileSync(pub, pair.publicKey);
    const out = execFileSync("ssh-keygen", ["-l", "-f", pub], { encoding: "utf8" });
    assert.match(out, /^4096 SHA256:\S+ .*\(RSA\)\n$/);
  });

  it("stores a PKCS#1 private key from which ssh-keygen derives the same public key", () => {
    assert.match(pair.privateKey, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    const priv = join(dir, "id_rsa");
    writeFileSync(priv, pair.privateKey, { mode: 0o600 });
    const derived = execFileSync("ssh-keygen", ["-y", "-f", priv], { encoding: "utf8" }).trim();
    assert.equal(derived.split(" ").slice(0, 2).join(" "), pair.publicKey);
  });

  it("encodes the mpints with a leading zero when the top bit is set (ssh-keygen round trip of many keys)", () => {
    for (let i = 0; i < 8; i++) {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
      const line = openSSHPublicKey(privateKey);
      const path = join(dir, `k${i}.pub`);
      writeFileSync(path, line);
      const pem = join(dir, `k${i}.pem`);
      writeFileSync(pem, privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 });
      assert.equal(execFileSync("ssh-keygen", ["-y", "-f", pem], { encoding: "utf8" }).trim().split(" ").slice(0, 2).join(" "), line);
    }
  });

  it("validates key pairs (docs/maintenance-and-rotation.md#key-validation)", () => {
    assert.equal(keyPairProblem(pair), undefined);
    assert.deepEqual(keyPairOf(keyPairData(pair)), pair);
    assert.match(keyPairProblem({ ...pair, publicKey: `${pair.publicKey}\n` }) ?? "", /exactly one line/);
    assert.match(keyPairProblem({ ...pair, publicKey: `${pair.publicKey} comment` }) ?? "", /exactly one line/);
    const other = openSSHPublicKey(generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey);
    assert.match(keyPairProblem({ ...pair, publicKey: other }) ?? "", /not the public half/);
    const pkcs8 = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    assert.match(keyPairProblem({ ...pair, privateKey: pkcs8 }) ?? "", /PKCS#1/);
    assert.match(keyPairProblem({ publicKey: pair.publicKey }) ?? "", /id_rsa is missing/);
    assert.match(keyPairProblem({ ...pair, publicKey: "ssh-rsa AAAA" }) ?? "", /malformed/);
  });
});
