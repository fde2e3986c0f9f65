import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SSHKeyError, formatPublicKey, isValidAuthorizedKey, parseAuthorizedKey, trimKey } from "./sshkey.ts";

// Wire-format builders for keys ssh-keygen cannot make here (security keys) and for broken blobs.
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const str = (v: Buffer | string) => {
  const b = typeof v === "string" ? Buffer.from(v, "latin1") : v;
  return Buffer.concat([u32(b.length), b]);
};
const fieldsOf = (blob: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let off = 0; off < blob.length; ) {
    const n = blob.readUInt32BE(off);
    out.push(blob.subarray(off + 4, off + 4 + n));
    off += 4 + n;
  }
  return out;
};
const line = (type: string, blob: Buffer, comment = "") => `${type} ${blob.toString("base64")}${comment ? ` ${comment}` : ""}`;

const hasKeygen = (() => {
  try {
    execFileSync("ssh-keygen", ["-?"], { stdio: "ignore" });
    return true;
  } catch (err) {
    return (err as { status?: number }).status !== undefined && (err as { code?: string }).code !== "ENOENT";
  }
})();

let dir = "";
const keys: Record<string, string> = {};

function keygen(name: string, args: string[]): string {
  execFileSync("ssh-keygen", ["-q", "-N", "", "-C", `${name}@test host`, "-f", join(dir, name), ...args]);
  return readFileSync(join(dir, `${name}.pub`), "utf8");
}

function blobOf(entry: string): Buffer {
  return Buffer.from(entry.split(" ")[1]!, "base64");
}

describe("authorized_keys entries (docs/bastion.md#d6-one-key-and-injection-safe-userdata)", { skip: hasKeygen ? false : "ssh-keygen is not installed" }, () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sshkey-test-"));
    keys.rsa = keygen("rsa", ["-t", "rsa", "-b", "2048"]);
    keys.dsa = keygen("dsa", ["-t", "dsa"]);
    keys.p256 = keygen("p256", ["-t", "ecdsa", "-b", "256"]);
    keys.p384 = keygen("p384", ["-t", "ecdsa", "-b", "384"]);
    keys.p521 = keygen("p521", ["-t", "ecdsa", "-b", "521"]);
    keys.ed = keygen("ed", ["-t", "ed25519"]);
    keygen("ca", ["-t", "ed25519"]);
    execFileSync("ssh-keygen", ["-q", "-s", join(dir, "ca"), "-I", "user-1", "-n", "gardener", "-V", "+1h", join(dir, "ed.pub")]);
    keys.edCert = readFileSync(join(dir, "ed-cert.pub"), "utf8");
    execFileSync("ssh-keygen", ["-q", "-s", join(dir, "ca"), "-I", "user-2", "-O", "force-command=/bin/true", join(dir, "rsa.pub")]);
    keys.rsaCert = readFileSync(join(dir, "rsa-cert.pub"), "utf8");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts every key type ssh-keygen makes, with a trailing line break and a comment", () => {
    const expected: Record<string, string> = {
      rsa: "ssh-rsa",
      dsa: "ssh-dss",
      p256: "ecdsa-sha2-nistp256",
      p384: "ecdsa-sha2-nistp384",
      p521: "ecdsa-sha2-nistp521",
      ed: "ssh-ed25519",
      edCert: "ssh-ed25519-cert-v01@openssh.com",
      rsaCert: "ssh-rsa-cert-v01@openssh.com",
    };
    for (const [name, type] of Object.entries(expected)) {
      const entry = keys[name]!;
      assert.ok(entry.endsWith("\n"), name);
      const parsed = parseAuthorizedKey(entry);
      assert.equal(parsed.type, type, name);
      assert.equal(parsed.line, entry.trim());
      assert.equal(formatPublicKey(parsed), entry.trim().split(" ").slice(0, 2).join(" "));
    }
    assert.equal(parseAuthorizedKey(keys.ed!).comment, "ed@test host");
    assert.equal(parseAuthorizedKey(keys.ed!.split(" ").slice(0, 2).join(" ")).comment, "");
    assert.equal(isValidAuthorizedKey(`  \t${keys.ed!}\r\n`), true);
  });

  it("accepts security-key types built in the wire format", () => {
    const ed = fieldsOf(blobOf(keys.ed!))[1]!;
    const skEd = Buffer.concat([str("sk-ssh-ed25519@openssh.com"), str(ed), str("ssh:")]);
    assert.equal(parseAuthorizedKey(line("sk-ssh-ed25519@openssh.com", skEd)).type, "sk-ssh-ed25519@openssh.com");
    const [, curve, point] = fieldsOf(blobOf(keys.p256!));
    const skEc = Buffer.concat([str("sk-ecdsa-sha2-nistp256@openssh.com"), str(curve!), str(point!), str("ssh:")]);
    assert.equal(parseAuthorizedKey(line("sk-ecdsa-sha2-nistp256@openssh.com", skEc)).type, "sk-ecdsa-sha2-nistp256@openssh.com");
    // Without the application string the blob is truncated.
    assert.equal(isValidAuthorizedKey(line("sk-ssh-ed25519@openssh.com", skEd.subarray(0, skEd.length - 8))), false);
  });

  it("accepts keys made with node:crypto and encoded here", () => {
    const { publicKey } = generateKeyPairSync("ed25519");
    const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519", Buffer.concat([str("ssh-ed25519"), str(raw)]), "node")), true);
  });

  it("rejects anything but exactly one plain entry", () => {
    const ed = keys.ed!.trim();
    const rejected = [
      "",
      " \n ",
      `no-pty ${ed}`,
      `command="/bin/sh" ${ed}`,
      `# ${ed}`,
      `${ed}\n${keys.rsa!.trim()}`,
      `${ed}\n`.repeat(2),
      ed.replace(" ", "\t"),
      `${ed} bad\u0007bell`,
      `${ed} \u0085next-line`,
      ed.split(" ")[0]!,
      `ssh-foo ${ed.split(" ")[1]}`,
      `ssh-rsa ${ed.split(" ")[1]}`,
      keys.p256!.trim().replace(/=+ /, " "),
      `ssh-ed25519 ${ed.split(" ")[1]!.slice(0, -4)}`,
      `ssh-ed25519 ${Buffer.concat([blobOf(ed), Buffer.from([0])]).toString("base64")}`,
      `ssh-ed25519 ${ed.split(" ")[1]!.replace(/A/, "*")}`,
      `ssh-ed25519 ${ed.split(" ")[1]!.replace(/[A-Za-z]/, "-")}`,
    ];
    for (const value of rejected) {
      assert.equal(isValidAuthorizedKey(value), false, JSON.stringify(value));
      assert.throws(() => parseAuthorizedKey(value), SSHKeyError);
    }
  });

  it("checks the key-specific fields", () => {
    // ECDSA: the point must lie on the curve named by the type.
    const [type, curve, point] = fieldsOf(blobOf(keys.p256!));
    const offCurve = Buffer.from(point!);
    offCurve[offCurve.length - 1]! ^= 1;
    assert.equal(isValidAuthorizedKey(line("ecdsa-sha2-nistp256", Buffer.concat([str(type!), str(curve!), str(offCurve)]))), false);
    assert.equal(isValidAuthorizedKey(line("ecdsa-sha2-nistp256", Buffer.concat([str(type!), str("nistp384"), str(point!)]))), false);
    // Ed25519: exactly 32 bytes.
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519", Buffer.concat([str("ssh-ed25519"), str(Buffer.alloc(31, 1))]))), false);
    // RSA: an odd exponent >= 3 and a modulus OpenSSH would accept.
    const [, e, n] = fieldsOf(blobOf(keys.rsa!));
    assert.equal(isValidAuthorizedKey(line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(e!), str(n!)]))), true);
    assert.equal(isValidAuthorizedKey(line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(Buffer.from([2])), str(n!)]))), false);
    assert.equal(isValidAuthorizedKey(line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(e!), str(n!.subarray(0, 65))]))), false);
    assert.equal(isValidAuthorizedKey(line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(e!), str(Buffer.from([0x80, ...n!.subarray(1)]))]))), false);
  });

  it("checks certificates field by field", () => {
    const cert = blobOf(keys.edCert!);
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519-cert-v01@openssh.com", cert.subarray(0, cert.length - 1))), false);
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519-cert-v01@openssh.com", Buffer.concat([cert, Buffer.from([0])]))), false);
    // The declared type must be the certificate type, not the plain one.
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519", cert)), false);
    // A certificate signed by a "certificate" is malformed: replace the signature key with the cert itself.
    const fields = fieldsOf(cert.subarray(0));
    const rebuilt = (sigKey: Buffer) => {
      // type, nonce, pk, then serial (8) + cert type (4) are not length-prefixed: rebuild by offsets.
      const head = Buffer.concat([str(fields[0]!), str(fields[1]!), str(fields[2]!)]);
      let off = head.length + 12;
      const rest: Buffer[] = [];
      for (let i = 0; i < 2; i++) {
        const len = cert.readUInt32BE(off);
        rest.push(cert.subarray(off, off + 4 + len));
        off += 4 + len;
      }
      const times = cert.subarray(off, off + 16);
      off += 16;
      const tail: Buffer[] = [];
      while (off < cert.length) {
        const len = cert.readUInt32BE(off);
        tail.push(cert.subarray(off + 4, off + 4 + len));
        off += 4 + len;
      }
      // tail: critical options, extensions, reserved, signature key, signature
      return Buffer.concat([head, cert.subarray(head.length, head.length + 12), ...rest, times, str(tail[0]!), str(tail[1]!), str(tail[2]!), str(sigKey), str(tail[4]!)]);
    };
    const caBlob = blobOf(readFileSync(join(dir, "ca.pub"), "utf8"));
    assert.deepEqual(rebuilt(caBlob), cert);
    assert.equal(isValidAuthorizedKey(line("ssh-ed25519-cert-v01@openssh.com", rebuilt(cert))), false);
  });

  it("trims only surrounding ASCII whitespace", () => {
    assert.equal(trimKey(" \t a b \r\n"), "a b");
    assert.equal(trimKey("\u00a0a\u00a0"), "\u00a0a\u00a0");
  });
});

describe("authorized_keys entries are bounded in size and work", () => {
  const E = Buffer.from([0x01, 0x00, 0x01]);
  /** A modulus of exactly `bits` bits (top bit set, odd), with the sign byte mpints need. */
  const modulus = (bits: number) => {
    const bytes = Buffer.alloc(Math.ceil(bits / 8), 0xab);
    bytes[0] = 1 << (bits - 1) % 8;
    bytes[bytes.length - 1] = bytes.at(-1)! | 1;
    return bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
  };
  const rsa = (bits: number, comment = "") => line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(E), str(modulus(bits))]), comment);
  const reason = (entry: string) => {
    try {
      parseAuthorizedKey(entry);
    } catch (err) {
      assert.ok(err instanceof SSHKeyError, String(err));
      return err.message;
    }
    return "accepted";
  };

  it("accepts RSA moduli from 1024 to 16384 bits, OpenSSH's range", () => {
    assert.equal(reason(rsa(1024)), "accepted");
    assert.equal(reason(rsa(16384)), "accepted");
    assert.equal(reason(rsa(1023)), "RSA modulus too small");
    assert.equal(reason(rsa(16385)), "RSA modulus too large");
    // One byte more than the sign byte allows is refused before it becomes a number.
    assert.equal(reason(line("ssh-rsa", Buffer.concat([str("ssh-rsa"), str(E), str(Buffer.concat([Buffer.alloc(2), modulus(16384)]))]))), "integer in key data longer than 16384 bits");
  });

  it("refuses a 17-megabit modulus at once, by its length", () => {
    const started = performance.now();
    assert.equal(reason(rsa(17_000_000)), "key longer than 32768 characters");
    assert.ok(performance.now() - started < 500, "decided without parsing the modulus");
  });

  it("bounds the blob of every key type and the whole entry", () => {
    // A security key whose application string makes the blob larger than OpenSSH accepts.
    const sk = Buffer.concat([str("sk-ssh-ed25519@openssh.com"), str(Buffer.alloc(32, 7)), str("ssh:")]);
    assert.equal(reason(line("sk-ssh-ed25519@openssh.com", sk)), "accepted");
    const big = Buffer.concat([str("sk-ssh-ed25519@openssh.com"), str(Buffer.alloc(32, 7)), str("x".repeat(17_000))]);
    assert.equal(reason(line("sk-ssh-ed25519@openssh.com", big)), "key data longer than 16384 bytes");
    // DSA numbers larger than DSA's are refused before conversion.
    const dsa = Buffer.concat([str("ssh-dss"), str(Buffer.alloc(4000, 0x11)), str(Buffer.alloc(20, 1)), str(Buffer.from([2])), str(Buffer.from([3]))]);
    assert.equal(reason(line("ssh-dss", dsa)), "integer in key data longer than 1024 bits");
    // A valid key with a comment that makes the entry too long.
    assert.equal(reason(rsa(2048, "c".repeat(32 * 1024))), "key longer than 32768 characters");
    assert.equal(reason(rsa(2048, "c".repeat(1000))), "accepted");
  });
});
