// `gardenctl ssh` flag validation (docs/gardenctl-ssh.md#validation, docs/gardenctl-ssh.md#output-and-exit-codes): each rule's message as `Error: <message>` on
// stderr (one line per invalid flag) and exit 1, before any API call (the kubeconfig points nowhere), plus usage on flag
// parsing errors and the top-level help.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Env, gardenctl } from "./support.ts";

const cases: [string[], string | string[]][] = [
  [["a", "b"], "accepts at most 1 arg(s), received 2"],
  [["-o", "xml"], "--output must be either 'yaml' or 'json'"],
  [["--shell", "tcsh"], "shell must be one of [bash zsh fish powershell]"],
  [["--shell", ""], "shell is required"],
  [["--wait-timeout", "0s"], "the maximum wait duration must be non-zero"],
  [["--keepalive-interval", "5s"], "--keepalive-interval must be between 10s and 30m0s"],
  [["--keepalive-interval", "31m"], "--keepalive-interval must be between 10s and 30m0s"],
  [["node-1", "--no-keepalive"], ["set --interactive=false when disabling keepalive", "set --keep-bastion when disabling keepalive"]],
  [["--no-keepalive"], "set --keep-bastion when disabling keepalive"],
  [["node-1", "-o", "json"], "set --interactive=false when using the output flag"],
  [["--", "ls"], "a node name is required when a command is given"],
  [["node-1", "--interactive=false", "--", "ls"], "a command cannot be combined with --interactive=false"],
  [["node-1", "--user", ""], "user must not be empty"],
  [["node-1", "--user", "a".repeat(33)], "user must not exceed 32 characters"],
  [["node-1", "--user", "Root"], "user must start with a lowercase letter or underscore, followed by lowercase letters, digits, underscores, or hyphens"],
  [["node-1", "--bastion-port", "70000"], "bastion port must be a valid port number between 1 and 65535"],
  [["node-1", "--bastion-port", " 22"], "bastion port must be a valid port number between 1 and 65535"],
  [["node-1", "--bastion-host", "0.0.0.0"], 'invalid bastion-host: unspecified addresses are not allowed: "0.0.0.0"'],
  [["224.0.0.1"], 'invalid node name: multicast addresses are not allowed: "224.0.0.1"'],
  [["node-1", "--bastion-strict-host-key-checking", "x"], `invalid value "x" for StrictHostKeyChecking. Valid options are 'yes', 'ask', 'accept-new', 'no', or 'off'`],
  [["node-1", "--key-type", "dsa"], "--key-type must be either 'ed25519' or 'rsa'"],
  [["node-1", "--private-key-file", "/k"], "set --public-key-file when using --private-key-file"],
  [["node-1", "--cidr", "8.8.8.8"], 'CIDR "8.8.8.8" is invalid: invalid CIDR address: 8.8.8.8'],
  // Every invalid flag is named, one line each, not just the first.
  [["a", "b", "-o", "xml", "--user", "Root", "--key-type", "dsa"], ["accepts at most 1 arg(s), received 2", "--output must be either 'yaml' or 'json'", "set --interactive=false when using the output flag", "user must start with a lowercase letter or underscore, followed by lowercase letters, digits, underscores, or hyphens", "--key-type must be either 'ed25519' or 'rsa'"]],
];

describe("gardenctl ssh: validation", () => {
  const dir = mkdtempSync(join(tmpdir(), "gardenctl-validation-"));
  const e = { dir, tmp: dir, home: dir, sshLog: join(dir, "ssh.log"), kubeconfig: join(dir, "missing.kubeconfig") } as Env;
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "ssh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });

  test("each rule fails with its message and exit 1", async () => {
    const runs = cases.map(([args, message]) => ({ args, message, run: gardenctl(e, [...args, "--kubeconfig", e.kubeconfig], { bare: true, env: { GCTL_SHELL: "bash" } }) }));
    for (const { args, message, run } of runs) {
      assert.equal(await run.exit, 1, `${args.join(" ")}: ${run.stderr()}`);
      assert.equal(run.stderr(), [message].flat().map((m) => `Error: ${m}\n`).join(""), args.join(" "));
      assert.equal(run.stdout(), "");
    }
  });

  test("public key file checks; ssh must be on PATH; no public-IP source", async () => {
    writeFileSync(join(dir, "two.pub"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK a\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK b\n");
    writeFileSync(join(dir, "k"), "not a key\n");
    const two = gardenctl(e, ["node-1", "--public-key-file", join(dir, "two.pub"), "--private-key-file", join(dir, "k")], { bare: true });
    assert.equal(await two.exit, 1);
    assert.equal(two.stderr(), `Error: invalid SSH public key in "${join(dir, "two.pub")}": public key must contain exactly one key (unexpected data after first key)\n`);
    writeFileSync(join(dir, "one.pub"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK a\n");
    const badPriv = gardenctl(e, ["node-1", "--public-key-file", join(dir, "one.pub"), "--private-key-file", join(dir, "k")], { bare: true });
    assert.equal(await badPriv.exit, 1);
    assert.equal(badPriv.stderr(), `Error: invalid SSH private key in "${join(dir, "k")}": private key must start with a PEM BEGIN line\n`);
    const agentless = gardenctl(e, ["node-1", "--public-key-file", join(dir, "one.pub")], { bare: true, env: { SSH_AUTH_SOCK: "" } });
    assert.equal(await agentless.exit, 1);
    assert.equal(agentless.stderr(), "Error: a public key was provided, but no private key was found loaded into an SSH agent; this prevents gardenctl from validating the created bastion instance\n");

    const noSSH = gardenctl({ ...e, dir: join(dir, "nowhere") }, ["node-1", "--cidr", "10.0.0.1/32"], { bare: true, env: { PATH: "/nonexistent" } });
    assert.equal(await noSSH.exit, 1);
    assert.match(noSSH.stderr(), /^Error: ssh client not found in PATH; install an OpenSSH client\n$/);

    const noIP = gardenctl(e, ["node-1", "--kubeconfig", e.kubeconfig], { bare: true });
    assert.equal(await noIP.exit, 1);
    assert.equal(noIP.stderr(), "Error: could not determine the CIDR(s) allowed to reach the bastion: pass --cidr, or configure a public-IP command (--public-ip-command, GCTL_PUBLIC_IP_COMMAND or ssh.publicIPCommand)\n");
    const badIP = gardenctl(e, ["node-1"], { bare: true, env: { GCTL_PUBLIC_IP_COMMAND: "echo 127.0.0.1" } });
    assert.equal(await badIP.exit, 1);
    assert.equal(badIP.stderr(), 'Error: public IP command returned a non-global unicast IP address: "127.0.0.1"\n');
  });

  test("a bad flag value prints the error and the usage; --help helps", async () => {
    const bad = gardenctl(e, ["--wait-timeout", "soon"], { bare: true });
    assert.equal(await bad.exit, 1);
    assert.match(bad.stderr(), /^Error: option '--wait-timeout <duration>' argument 'soon' is invalid/);
    assert.match(bad.stderr(), /Usage: gardenctl ssh \[NODE_NAME\] \[flags\] \[-- COMMAND \[ARG\.\.\.\]\]/);
    const help = gardenctl(e, ["--help"], { bare: true });
    assert.equal(await help.exit, 0);
    assert.match(help.stdout(), /--keepalive-interval <duration>\s+heartbeat period \(10s to 30m\) \(default: 3m0s\)/);
    assert.match(help.stdout(), /--public-ip-command <command>/);
  });

  test.after(() => rmSync(dir, { recursive: true, force: true }));
});
