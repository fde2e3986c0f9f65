import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { passwdEntry, systemUserManager } from "./users.ts";

const PASSWD = ["root:x:0:0:root:/root:/bin/bash", "gardenerx:x:7:7::/home/gardenerx:/bin/sh", "# gardener:x:1:1::/:/bin/sh", "gardener:x:1001:1002::/home/gardener:/bin/bash", ""].join("\n");

describe("passwdEntry", () => {
  it("finds the user's uid and primary gid by exact name", () => {
    assert.deepEqual(passwdEntry(PASSWD, "gardener"), { uid: 1001, gid: 1002 });
    assert.deepEqual(passwdEntry(PASSWD, "root"), { uid: 0, gid: 0 });
    assert.equal(passwdEntry(PASSWD, "garden"), undefined, "no prefix match");
  });

  it("skips malformed entries", () => {
    assert.equal(passwdEntry("gardener:x:abc:1::/home/gardener:/bin/sh\n", "gardener"), undefined);
    assert.equal(passwdEntry("gardener:x:1:2\n", "gardener"), undefined);
    assert.equal(passwdEntry("gardener:x::2::/home/gardener:/bin/sh\n", "gardener"), undefined);
  });
});

describe("systemUserManager", () => {
  it("returns an existing user's ids from the passwd file without creating it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "users-test-"));
    try {
      const file = join(dir, "passwd");
      writeFileSync(file, PASSWD);
      assert.deepEqual(await systemUserManager(file).ensureUser("gardener", "/home/gardener"), { uid: 1001, gid: 1002 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
