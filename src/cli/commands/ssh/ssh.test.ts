// Unit tests of the pure parts of `gardenctl ssh`: shell escaping, CIDR normalisation, the local
// public-IP strategy, generated keys and the private-key rules, and the example line of docs/gardenctl-ssh.md#the-ssh-command-line.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAuthorizedKey } from "../../../api/operations/sshkey.ts";
import { determineCIDRs, toCIDRs } from "./cidr.ts";
import { escape } from "./escape.ts";
import { checkPrivateKey, generateKeyPair } from "./keys.ts";
import { Logger } from "./log.ts";
import { printedCommand } from "./sshcmd.ts";

const log = (): { log: Logger; text: () => string } => {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  return { log: new Logger(out, 0), text: () => text };
};

describe("escape", () => {
  test("per shell", () => {
    assert.equal(escape("bash", "it's"), `'it'"'"'s'`);
    assert.equal(escape("zsh", "a\u0007b"), "'ab'");
    assert.equal(escape("fish", "a\\b'c"), `'a\\\\b'\\''c'`);
    assert.equal(escape("powershell", "it’s 'x'"), "'it’’s ''x'''");
  });
});

describe("CIDRs", () => {
  test("IPv4 /32, IPv6 /64 masked, duplicates removed, non-global rejected", () => {
    const l = log();
    assert.deepEqual(toCIDRs(["2001:db8::8a2e:370:7334", "192.0.2.42", "192.0.2.42"], l.log), ["2001:db8::/64", "192.0.2.42/32"]);
    assert.deepEqual(toCIDRs(["2001:db8:1:2:3::1"], l.log), ["2001:db8:1:2::/64"]);
    assert.throws(() => toCIDRs(["fe80::1"], l.log), /non-global unicast IP address: "fe80::1"/);
    assert.throws(() => toCIDRs(["nope"], l.log), /printed an invalid IP address: "nope"/);
  });

  test("the public-IP command splits on whitespace and commas; its failure and silence are errors", async () => {
    const l = log();
    assert.deepEqual(await determineCIDRs({ cidrs: [], env: { GCTL_PUBLIC_IP_COMMAND: "echo 192.0.2.1,198.51.100.2" } }, l.log), ["192.0.2.1/32", "198.51.100.2/32"]);
    assert.match(l.text(), /^Auto-detected your system's CIDR\(s\) cidr="192.0.2.1\/32, 198.51.100.2\/32"$/m);
    await assert.rejects(determineCIDRs({ cidrs: [], env: { GCTL_PUBLIC_IP_COMMAND: "echo oops >&2; exit 3" } }, l.log), /public IP command "echo oops >&2; exit 3" failed: exit status 3: oops/);
    await assert.rejects(determineCIDRs({ cidrs: [], env: { GCTL_PUBLIC_IP_COMMAND: "true" } }, l.log), /could not determine the CIDR\(s\) allowed to reach the bastion: pass --cidr/);
    await assert.rejects(determineCIDRs({ cidrs: [], env: {} }, l.log), /configure a public-IP command \(--public-ip-command, GCTL_PUBLIC_IP_COMMAND or ssh\.publicIPCommand\)/);
    assert.deepEqual(await determineCIDRs({ cidrs: [], env: { GCTL_PUBLIC_IP_COMMAND: "echo 192.0.2.1" }, publicIpCommand: "echo 198.51.100.9", config: { publicIPCommand: "echo 203.0.113.1" } }, l.log), ["198.51.100.9/32"], "the flag first");
    assert.deepEqual(await determineCIDRs({ cidrs: [], env: {}, config: { publicIPCommand: "echo 203.0.113.1" } }, l.log), ["203.0.113.1/32"], "the config last");
  });
});

describe("keys", () => {
  test("generated pairs are valid authorized keys and pass the private-key rules", () => {
    const dir = mkdtempSync(join(tmpdir(), "gardenctl-keys-"));
    try {
      for (const type of ["ed25519", "rsa"] as const) {
        const kp = generateKeyPair(dir, type);
        assert.equal(parseAuthorizedKey(kp.publicKey).type, type === "rsa" ? "ssh-rsa" : "ssh-ed25519");
        checkPrivateKey(kp.privateKeyFile!, readFileSync(kp.privateKeyFile!, "utf8"));
      }
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test("private-key rules", () => {
    assert.throws(() => checkPrivateKey("f", "x"), /invalid SSH private key in "f": private key must start with a PEM BEGIN line/);
    const k = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END RSA PRIVATE KEY-----\n";
    assert.throws(() => checkPrivateKey("f", k), /private key must not include PEM headers/);
    assert.throws(() => checkPrivateKey("f", `${k}junk`), /exactly one PEM block \(unexpected data after END line\)/);
  });
});

test("the printed command of the example in docs/gardenctl-ssh.md#the-ssh-command-line", () => {
  const d = "<d>";
  const line = printedCommand({
    shell: "bash",
    bastionAddress: "192.0.2.1",
    bastionPort: "22",
    bastionPrivateKeyFile: `${d}/bastion_id_ed25519`,
    bastionKnownHostsFiles: [`${d}/bastion_known_hosts`],
    bastionStrictHostKeyChecking: "yes",
    nodeKnownHostsFiles: [`${d}/node_known_hosts`],
    nodeStrictHostKeyChecking: "yes",
    nodePrivateKeyFiles: [`${d}/node_id_rsa`],
    user: "gardener",
    nodeHost: "10.250.0.5",
    command: [],
  });
  assert.equal(
    line,
    `ssh -oIdentitiesOnly=yes -oStrictHostKeyChecking=yes '-oUserKnownHostsFile='"'"'<d>/node_known_hosts'"'"'' '-i<d>/node_id_rsa' '-oProxyCommand=ssh '"'"'-W[%h]:%p'"'"' -oStrictHostKeyChecking=yes -oIdentitiesOnly=yes '"'"'-i<d>/bastion_id_ed25519'"'"' '"'"'-oUserKnownHostsFile='"'"'"'"'"'"'"'"'<d>/bastion_known_hosts'"'"'"'"'"'"'"'"''"'"' '"'"'-p22'"'"' '"'"'gardener@192.0.2.1'"'"'' 'gardener@10.250.0.5'`,
  );
});
