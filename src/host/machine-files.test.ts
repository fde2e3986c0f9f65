import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { HostSpecError } from "./names.ts";
import { INIT, STAGE1, SYSTEMCTL, renderSshdConfig } from "./machine-files.ts";

test("sshd_config is standalone: own host keys and pid file, public keys only, no root login", () => {
  assert.equal(
    renderSshdConfig({ machine: "b1", port: 22, listenAddresses: ["192.168.250.10", "fd00::10"], hostKeyTypes: ["ed25519", "rsa"], options: { AllowUsers: ["gardener"], AllowTcpForwarding: true, permitrootlogin: "prohibit-password" } }),
    `# sshd of machine b1, written by host/ (the host's /etc/ssh is not used)
Port 22
ListenAddress 192.168.250.10:22
ListenAddress [fd00::10]:22
HostKey /run/ga/host-keys/ssh_host_ed25519_key
HostKey /run/ga/host-keys/ssh_host_rsa_key
PidFile /run/ga/sshd.pid
UsePAM yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
permitrootlogin prohibit-password
AuthorizedKeysFile .ssh/authorized_keys
PrintMotd no
Subsystem sftp /usr/lib/openssh/sftp-server
AllowUsers gardener
AllowTcpForwarding yes
`,
  );
});

test("sshd options the machine spec owns, or that could inject lines, are refused", () => {
  const input = { machine: "m", port: 22, listenAddresses: ["10.0.0.1"], hostKeyTypes: ["ed25519" as const] };
  assert.throws(() => renderSshdConfig({ ...input, options: { HostKey: "/etc/ssh/ssh_host_rsa_key" } }), HostSpecError);
  assert.throws(() => renderSshdConfig({ ...input, options: { ListenAddress: "0.0.0.0" } }), HostSpecError);
  assert.throws(() => renderSshdConfig({ ...input, options: { Banner: "x\nPermitRootLogin yes" } }), HostSpecError);
  assert.throws(() => renderSshdConfig({ ...input, options: { "Bad Key": "x" } }), HostSpecError);
  assert.throws(() => renderSshdConfig({ ...input, port: 0 }), HostSpecError);
});

test("the boot scripts are valid bash", () => {
  for (const [name, text] of [["stage1", STAGE1], ["init", INIT], ["systemctl", SYSTEMCTL]] as const) {
    const r = spawnSync("bash", ["-n"], { input: text, encoding: "utf8" });
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
  }
});

function systemctl(...args: string[]) {
  return spawnSync("bash", ["-c", SYSTEMCTL, "systemctl", ...args], { encoding: "utf8" });
}

test("the systemctl stand-in knows only ssh/sshd; other units are not found (exit 5), like systemctl", () => {
  const r = systemctl("start", "nginx.service");
  assert.equal(r.status, 5);
  assert.match(r.stderr, /Unit nginx\.service not found/);
  assert.equal(systemctl("daemon-reload").status, 0);
  // No pid file outside a machine: sshd counts as not running.
  const active = systemctl("is-active", "sshd");
  assert.equal(active.status, 3);
  assert.equal(active.stdout.trim(), "inactive");
  assert.equal(systemctl("enable", "ssh").status, 0);
  assert.equal(systemctl("frobnicate", "sshd").status, 1);
});
