import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { validateBastionSpec } from "../operations/validation/bastion.ts";
import { isValidAuthorizedKey } from "../operations/sshkey.ts";
import { ed25519AuthorizedKey } from "../operations/testing.ts";
import { USERDATA_PATHS, bastionUserData, bastionUserDataBase64 } from "./userdata.ts";

// The script runs for real with bash, in a sandbox: the two path definitions point into a temp
// directory, and useradd, getent, chown and systemctl are fakes on PATH that log their arguments.
const FAKES: Record<string, string> = {
  getent: `echo "getent $*" >>"$LOG"; grep -qx "$2" "$STATE/$1" 2>/dev/null`,
  useradd: `echo "useradd $*" >>"$LOG"
home=""; group=0
while [ $# -gt 0 ]; do case "$1" in --home-dir) home="$2"; shift;; --user-group) group=1;; esac; shift; done
mkdir -p "$home"; echo gardener >>"$STATE/passwd"; if [ $group = 1 ]; then echo gardener >>"$STATE/group"; fi`,
  chown: `echo "chown $*" >>"$LOG"`,
  systemctl: `echo "systemctl $*" >>"$LOG"; case " $FAIL_UNITS " in *" $2 "*) exit 1;; esac`,
};

let sandbox = "";

interface Run {
  status: number | null;
  stderr: string;
  log: string[];
  root: string;
}

function newRoot(): string {
  const root = mkdtempSync(join(sandbox, "root-"));
  mkdirSync(join(root, "state"));
  return root;
}

/** Runs the script with its paths moved under root; returns exit status and the fakes' log. */
function runScript(script: string, root: string, env: Record<string, string> = {}): Run {
  const sandboxed = script
    .replace(`\nhome_dir=${USERDATA_PATHS.home}\n`, `\nhome_dir=${root}${USERDATA_PATHS.home}\n`)
    .replace(`\nsudoers_file=${USERDATA_PATHS.sudoers}\n`, `\nsudoers_file=${root}${USERDATA_PATHS.sudoers}\n`);
  assert.equal(sandboxed.split("\n").filter((l, i) => l !== script.split("\n")[i]).length, 2, "exactly the two path lines are moved");
  const file = join(root, "userdata.sh");
  writeFileSync(file, sandboxed, { mode: 0o755 });
  const logFile = join(root, "log");
  writeFileSync(logFile, "");
  const r = spawnSync(file, [], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: `${join(sandbox, "bin")}:/usr/bin:/bin`, LOG: logFile, STATE: join(root, "state"), FAIL_UNITS: "", ...env },
  });
  return { status: r.status, stderr: r.stderr, log: readFileSync(logFile, "utf8").split("\n").filter(Boolean), root };
}

const mode = (p: string) => statSync(p).mode & 0o777;

describe("bastion userData (docs/bastion.md#userdata)", () => {
  before(() => {
    sandbox = mkdtempSync(join(tmpdir(), "userdata-test-"));
    mkdirSync(join(sandbox, "bin"));
    for (const [name, body] of Object.entries(FAKES)) {
      writeFileSync(join(sandbox, "bin", name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(sandbox, "bin", name), 0o755);
    }
  });
  after(() => rmSync(sandbox, { recursive: true, force: true }));

  it("is deterministic, starts with #!/bin/bash -eu and holds the key only as base64 in single quotes", () => {
    const key = ed25519AuthorizedKey("me@laptop");
    const script = bastionUserData(key);
    assert.equal(script, bastionUserData(`${key}\n`));
    assert.equal(script.split("\n")[0], "#!/bin/bash -eu");
    const b64 = Buffer.from(key).toString("base64");
    assert.ok(script.includes(`'${b64}'`));
    assert.ok(!script.includes(key.split(" ")[1]!), "the key blob appears only inside its base64 encoding");
    assert.equal(Buffer.from(bastionUserDataBase64(key), "base64").toString("utf8"), script);
  });

  it("creates the user, installs exactly the key, grants sudo and starts sshd; a second run changes nothing", () => {
    const key = ed25519AuthorizedKey("me@laptop");
    const root = newRoot();
    const first = runScript(bastionUserData(`${key}\n`), root);
    assert.equal(first.status, 0, first.stderr);
    const ssh = join(root, "home/gardener/.ssh");
    const sudoers = join(root, "etc/sudoers.d/99-gardener-user");
    assert.equal(readFileSync(join(ssh, "authorized_keys"), "utf8"), `${key}\n`);
    assert.equal(mode(ssh), 0o700);
    assert.equal(mode(join(ssh, "authorized_keys")), 0o600);
    assert.equal(readFileSync(sudoers, "utf8"), "gardener ALL=(ALL) NOPASSWD:ALL\n");
    assert.equal(mode(sudoers), 0o440);
    assert.deepEqual(first.log, [
      "getent passwd gardener",
      "getent group gardener",
      `useradd --create-home --home-dir ${root}/home/gardener --user-group --shell /bin/bash gardener`,
      `chown gardener:gardener ${ssh}`,
      `chown gardener:gardener ${ssh}/authorized_keys.new`,
      `chown root:root ${sudoers}.new`,
      "systemctl start sshd",
    ]);
    writeFileSync(join(ssh, "authorized_keys"), "ssh-ed25519 AAAA stale\n");
    const second = runScript(bastionUserData(key), root);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(readFileSync(join(ssh, "authorized_keys"), "utf8"), `${key}\n`, "replaces any content");
    assert.ok(!second.log.some((l) => l.startsWith("useradd")), "keeps the existing user");
    assert.deepEqual(readdirSync(ssh), ["authorized_keys"]);
  });

  it("joins an existing group, falls back to unit ssh, and fails when no SSH daemon starts", () => {
    const key = ed25519AuthorizedKey();
    const root = newRoot();
    writeFileSync(join(root, "state/group"), "gardener\n");
    const fallback = runScript(bastionUserData(key), root, { FAIL_UNITS: "sshd" });
    assert.equal(fallback.status, 0, fallback.stderr);
    assert.ok(fallback.log.includes(`useradd --create-home --home-dir ${root}/home/gardener --gid gardener --shell /bin/bash gardener`));
    assert.deepEqual(fallback.log.slice(-2), ["systemctl start sshd", "systemctl start ssh"]);
    const failed = runScript(bastionUserData(key), root, { FAIL_UNITS: "sshd ssh" });
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /failed to start the SSH daemon/);
  });

  it("cannot be made to run anything by a malicious key: validation rejects it, and the script writes it as data", () => {
    const root = newRoot();
    const marks = [1, 2, 3, 4].map((i) => join(root, `pwned-${i}`));
    const evil =
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x'; touch ${marks[0]}; echo '\n` +
      `$(touch ${marks[1]})\n\`touch ${marks[2]}\`\n"; touch ${marks[3]}; "\\\n--\n`;
    assert.equal(isValidAuthorizedKey(evil), false);
    assert.deepEqual(validateBastionSpec({ shootRef: { name: "s" }, sshPublicKey: evil, ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }] }).map((e) => e.detail), [
      "invalid sshPublicKey",
    ]);

    const script = bastionUserData(evil);
    const trimmed = evil.replace(/^[ \t\r\n\v\f]+|[ \t\r\n\v\f]+$/g, "");
    // Apart from the base64 literal, the script is the same as for any other key.
    const template = (s: string, k: string) => s.replace(Buffer.from(k).toString("base64"), "KEY");
    assert.equal(template(script, trimmed), template(bastionUserData("k"), "k"));
    const run = runScript(script, root);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(root, "home/gardener/.ssh/authorized_keys"), "utf8"), `${trimmed}\n`);
    for (const m of marks) assert.equal(existsSync(m), false, `${m} must not exist`);
    assert.equal(run.log.length, 7);
  });
});
