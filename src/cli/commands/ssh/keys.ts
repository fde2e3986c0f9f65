// Keys for the run (docs/gardenctl-ssh.md#keys, docs/gardenctl-ssh.md#validation): the private directory ($TMPDIR/gardenctl-ssh-<random>, 0700,
// files 0600), a generated bastion key pair (ed25519 in the OpenSSH private key format, or RSA
// 3072 as PKCS#1 PEM, both read by OpenSSH), and the checks of user-given and secret keys.
import { createPrivateKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAuthorizedKey } from "../../../api/operations/sshkey.ts";
import { CLIError, errorMessage } from "./errors.ts";

export interface KeyPair {
  /** The trimmed authorized_keys line (spec.sshPublicKey). */
  publicKey: string;
  publicKeyFile: string;
  /** Absent when only an agent holds the key. */
  privateKeyFile?: string;
}

export function makePrivateDir(env: NodeJS.ProcessEnv): string {
  const dir = mkdtempSync(join(env.TMPDIR || tmpdir(), "gardenctl-ssh-"));
  chmodSync(dir, 0o700);
  return dir;
}

/** Synchronous, so it can run from exit handlers; never throws. */
export function removePrivateDir(dir: string): string | undefined {
  try {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

export function writePrivate(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function sshString(b: Buffer | string): Buffer {
  const data = typeof b === "string" ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function pem(label: string, data: Buffer): string {
  const b64 = data.toString("base64").replace(/.{1,70}/g, "$&\n");
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`;
}

/** Generates the bastion key pair into `dir` (bastion_id_<type> and .pub). */
export function generateKeyPair(dir: string, type: "ed25519" | "rsa"): KeyPair {
  const comment = "gardenctl";
  let publicKey: string;
  let privatePem: string;
  if (type === "ed25519") {
    const { publicKey: pub, privateKey: priv } = generateKeyPairSync("ed25519");
    const x = Buffer.from(pub.export({ format: "jwk" }).x ?? "", "base64url");
    const d = Buffer.from(priv.export({ format: "jwk" }).d ?? "", "base64url");
    const blob = Buffer.concat([sshString("ssh-ed25519"), sshString(x)]);
    const check = randomBytes(4);
    let section = Buffer.concat([check, check, sshString("ssh-ed25519"), sshString(x), sshString(Buffer.concat([d, x])), sshString(comment)]);
    const pad: number[] = [];
    for (let i = 1; (section.length + pad.length) % 8 !== 0; i++) pad.push(i);
    section = Buffer.concat([section, Buffer.from(pad)]);
    const body = Buffer.concat([Buffer.from("openssh-key-v1\0"), sshString("none"), sshString("none"), sshString(""), u32(1), sshString(blob), sshString(section)]);
    privatePem = pem("OPENSSH PRIVATE KEY", body);
    publicKey = `ssh-ed25519 ${blob.toString("base64")}`;
  } else {
    const { publicKey: pub, privateKey: priv } = generateKeyPairSync("rsa", { modulusLength: 3072 });
    const jwk = pub.export({ format: "jwk" });
    const mpint = (b64u: string | undefined): Buffer => {
      const raw = Buffer.from(b64u ?? "", "base64url");
      return sshString(raw[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), raw]) : raw);
    };
    const blob = Buffer.concat([sshString("ssh-rsa"), mpint(jwk.e), mpint(jwk.n)]);
    privatePem = priv.export({ format: "pem", type: "pkcs1" }).toString();
    publicKey = `ssh-rsa ${blob.toString("base64")}`;
  }
  const privateKeyFile = join(dir, `bastion_id_${type}`);
  writePrivate(privateKeyFile, privatePem);
  writePrivate(`${privateKeyFile}.pub`, `${publicKey} ${comment}\n`);
  return { publicKey, publicKeyFile: `${privateKeyFile}.pub`, privateKeyFile };
}

/** Reads and checks --public-key-file (exactly one authorized_keys entry). */
export function readPublicKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CLIError(`invalid SSH public key file: ${errorMessage(err)}`);
  }
  const trimmed = text.trim();
  if (trimmed.includes("\n")) throw new CLIError(`invalid SSH public key in ${JSON.stringify(path)}: public key must contain exactly one key (unexpected data after first key)`);
  try {
    return parseAuthorizedKey(trimmed).line;
  } catch (err) {
    throw new CLIError(`invalid SSH public key in ${JSON.stringify(path)}: public key cannot be parsed: ${errorMessage(err)}`);
  }
}

export function readPrivateKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CLIError(`failed to read SSH private key from ${JSON.stringify(path)}: ${errorMessage(err)}`);
  }
  checkPrivateKey(path, text);
  return text;
}

const BEGIN = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n/;

/** The private-key rules of docs/gardenctl-ssh.md#validation; `where` names the file or secret in messages. */
export function checkPrivateKey(where: string, text: string): void {
  const fail = (rule: string): never => {
    throw new CLIError(`invalid SSH private key in ${JSON.stringify(where)}: ${rule}`);
  };
  const begin = BEGIN.exec(text);
  if (!begin) return fail("private key must start with a PEM BEGIN line");
  const label = begin[1]!;
  const endLine = `-----END ${label}-----`;
  const end = text.indexOf(endLine);
  if (end < 0) return fail("private key cannot be parsed as SSH key: missing PEM END line");
  if (text.slice(end + endLine.length).trim() !== "") return fail("private key must contain exactly one PEM block (unexpected data after END line)");
  const body = text.slice(begin[0].length, end);
  if (body.split(/\r?\n/).some((l) => l.includes(":"))) return fail("private key must not include PEM headers");
  if (label === "OPENSSH PRIVATE KEY") {
    const data = Buffer.from(body.replace(/\s+/g, ""), "base64");
    const magic = "openssh-key-v1\0";
    if (data.subarray(0, magic.length).toString("latin1") !== magic) return fail("private key cannot be parsed as SSH key: ssh: invalid openssh private key format");
    const cipherLen = data.readUInt32BE(magic.length);
    const cipher = data.subarray(magic.length + 4, magic.length + 4 + cipherLen).toString();
    if (cipher !== "none") return fail("private key cannot be parsed as SSH key: passphrase-protected keys are not supported (use ssh-agent instead)");
    return;
  }
  try {
    createPrivateKey({ key: text, format: "pem" });
  } catch (err) {
    fail(`private key cannot be parsed as SSH key: ${errorMessage(err)}`);
  }
}
