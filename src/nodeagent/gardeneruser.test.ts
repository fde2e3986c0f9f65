import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { readHostKeys } from "./hostkeys.ts";
import { applyGardenerUser } from "./gardeneruser.ts";
import { fixedUserManager } from "./users.ts";

const KEY_A = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK";
const mode = (p: string) => statSync(p).mode & 0o7777;

describe("gardener-user part", () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "gardeneruser-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const users = fixedUserManager();

  it("installs the keys with strict modes, is idempotent, and leaves no temporary files", async () => {
    assert.deepEqual(await applyGardenerUser(root, users, KEY_A), { changed: true });
    const ak = join(root, "home/gardener/.ssh/authorized_keys");
    assert.equal(readFileSync(ak, "utf8"), KEY_A);
    assert.equal(mode(ak), 0o600);
    assert.equal(mode(join(root, "home/gardener/.ssh")), 0o700);
    assert.deepEqual(readdirSync(join(root, "home/gardener/.ssh")), ["authorized_keys"]);
    assert.deepEqual(await applyGardenerUser(root, users, KEY_A), { changed: false });
  });

  it("replaces the file as a whole (hand-added keys disappear) and repairs modes", async () => {
    await applyGardenerUser(root, users, KEY_A);
    const ak = join(root, "home/gardener/.ssh/authorized_keys");
    writeFileSync(ak, `${KEY_A}\nssh-ed25519 AAAA hand-added`, { mode: 0o644 });
    assert.deepEqual(await applyGardenerUser(root, users, KEY_A), { changed: true });
    assert.equal(readFileSync(ak, "utf8"), KEY_A);
    assert.equal(mode(ak), 0o600);
  });

  it("refuses a keys file with a line that is not exactly one valid key, keeping the installed keys", async () => {
    await applyGardenerUser(root, users, KEY_A);
    for (const bad of [`${KEY_A}\n`, `${KEY_A}\nnot a key`, `command="x" ${KEY_A}`, ""]) {
      await assert.rejects(applyGardenerUser(root, users, bad), /not exactly one valid public key/);
    }
    assert.equal(readFileSync(join(root, "home/gardener/.ssh/authorized_keys"), "utf8"), KEY_A);
  });

  it("removes the keys file and authorized_keys when the part is gone", async () => {
    await applyGardenerUser(root, users, KEY_A);
    assert.deepEqual(await applyGardenerUser(root, users, undefined), { changed: true });
    assert.equal(existsSync(join(root, "home/gardener/.ssh/authorized_keys")), false);
    assert.equal(existsSync(join(root, "var/lib/gardener-user-authorized-keys")), false);
    assert.deepEqual(await applyGardenerUser(root, users, undefined), { changed: false });
  });

  it("reads host keys without comments, sorted, skipping private keys and junk", async () => {
    for (const t of ["rsa", "ed25519"]) execFileSync("ssh-keygen", ["-q", "-t", t, ...(t === "rsa" ? ["-b", "1024"] : []), "-N", "", "-C", "root@x", "-f", join(root, `ssh_host_${t}_key`)]);
    writeFileSync(join(root, "ssh_host_junk_key.pub"), "nonsense");
    const text = await readHostKeys(root);
    const lines = text.split("\n");
    assert.equal(lines.length, 2);
    assert.deepEqual([...lines].sort(), lines);
    assert.ok(lines.every((l) => /^(ssh-rsa|ssh-ed25519) [A-Za-z0-9+/=]+$/.test(l)));
    assert.equal(await readHostKeys(join(root, "missing")), "");
  });
});
