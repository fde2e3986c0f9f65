import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateHostKey } from "./host-keys.ts";

for (const type of ["ed25519", "ecdsa"] as const) {
  test(`an in-process ${type} host key is one OpenSSH reads, and its public half is the private key's`, () => {
    const dir = mkdtempSync(join(tmpdir(), "host-keys-"));
    try {
      const k = generateHostKey(type);
      const file = join(dir, "key");
      writeFileSync(file, k.privateKey, { mode: 0o600 });
      // ssh-keygen -y derives the public key from the private key file: it fails on a file OpenSSH cannot read.
      const derived = execFileSync("ssh-keygen", ["-y", "-f", file], { encoding: "utf8" }).trim().split(" ").slice(0, 2).join(" ");
      assert.equal(derived, k.publicKey);
      assert.match(k.publicKey, type === "ed25519" ? /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA[A-Za-z0-9+/=]+$/ : /^ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAI[A-Za-z0-9+/=]+$/);
      assert.notEqual(generateHostKey(type).publicKey, k.publicKey, "every call makes a new key");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
