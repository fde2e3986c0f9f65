// The machine image's /etc: the host's, without its secrets, and fit for a machine in a user namespace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageDir, sanitizeEtc } from "./image.ts";

test("sanitizeEtc drops SSH host keys, TLS keys, sudoers drop-ins and sub-ids, locks every password, relaxes pam_loginuid", async () => {
  const etc = await mkdtemp(join(tmpdir(), "ga-etc-"));
  try {
    for (const d of ["ssh", "ssl/private", "sudoers.d", "pam.d"]) await mkdir(join(etc, d), { recursive: true });
    await writeFile(join(etc, "ssh", "ssh_host_ed25519_key"), "secret");
    await writeFile(join(etc, "ssh", "sshd_config"), "Port 22\n");
    await writeFile(join(etc, "ssl/private", "snakeoil.key"), "secret");
    await writeFile(join(etc, "sudoers.d", "README"), "readme");
    await writeFile(join(etc, "sudoers.d", "ops"), "ops ALL=(ALL) NOPASSWD:ALL");
    await writeFile(join(etc, "shadow"), "root:$6$salt$hash:19000:0:99999:7:::\nsshd:*:19000::::::\n");
    await writeFile(join(etc, "subuid"), "root:100000:65536\n");
    await writeFile(join(etc, "machine-id"), "0123456789abcdef\n");
    await writeFile(join(etc, "pam.d", "sshd"), "session    required     pam_loginuid.so\nsession    required     pam_limits.so\n");
    await sanitizeEtc(etc);
    assert.equal(existsSync(join(etc, "ssh", "ssh_host_ed25519_key")), false);
    assert.equal(existsSync(join(etc, "ssh", "sshd_config")), true);
    assert.equal(existsSync(join(etc, "ssl/private", "snakeoil.key")), false);
    assert.equal(existsSync(join(etc, "sudoers.d", "ops")), false);
    assert.equal(existsSync(join(etc, "sudoers.d", "README")), true);
    assert.equal(existsSync(join(etc, "subuid")), false);
    assert.equal(await readFile(join(etc, "machine-id"), "utf8"), "");
    assert.equal(await readFile(join(etc, "shadow"), "utf8"), "root:*:19000:0:99999:7:::\nsshd:*:19000::::::\n");
    assert.equal(await readFile(join(etc, "pam.d", "sshd"), "utf8"), "session    optional     pam_loginuid.so\nsession    required     pam_limits.so\n");
  } finally {
    await rm(etc, { recursive: true, force: true });
  }
});

test("each image version and id range has a directory of its own", () => {
  const a = imageDir({ stateDir: "/s", ids: { base: 1 << 28, count: 65536 } });
  const b = imageDir({ stateDir: "/s", ids: { base: (1 << 28) + 65536, count: 65536 } });
  assert.notEqual(a, b);
  assert.ok(a.startsWith("/s/image/"));
});
