// A machine's SSH host keys. Ed25519 and ECDSA (P-256) keys are made in this process with node:crypto and
// written as ssh-keygen writes them (the OpenSSH private key format for Ed25519, PEM for ECDSA, an
// authorized_keys line for the public half): a bastion's creation no longer waits for two ssh-keygen
// processes (tens of milliseconds each, far more on a loaded host; docs/machines.md#creating-many-machines).
// RSA keys, whose generation is a prime search, still come from ssh-keygen.
import { generateKeyPairSync, randomBytes } from "node:crypto";

export type InProcessKeyType = "ed25519" | "ecdsa";

export interface HostKeyPair {
  /** The private key file's content. */
  privateKey: string;
  /** "<type> <base64>" (what the .pub file holds, without comment). */
  publicKey: string;
}

function sshString(data: Buffer | string): Buffer {
  const b = typeof data === "string" ? Buffer.from(data) : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

function pem(label: string, body: Buffer): string {
  const b64 = body.toString("base64").replace(/.{1,70}/g, "$&\n");
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`;
}

function ed25519(): HostKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const d = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
  const blob = Buffer.concat([sshString("ssh-ed25519"), sshString(x)]);
  // openssh-key-v1, unencrypted: a random check word twice, the key, an empty comment, padding 1, 2, 3 ...
  const check = randomBytes(4);
  const section = Buffer.concat([check, check, sshString("ssh-ed25519"), sshString(x), sshString(Buffer.concat([d, x])), sshString("")]);
  const pad = Buffer.from(Array.from({ length: (8 - (section.length % 8)) % 8 }, (_, i) => i + 1));
  const count = Buffer.alloc(4);
  count.writeUInt32BE(1);
  const body = Buffer.concat([Buffer.from("openssh-key-v1\0"), sshString("none"), sshString("none"), sshString(""), count, sshString(blob), sshString(Buffer.concat([section, pad]))]);
  return { privateKey: pem("OPENSSH PRIVATE KEY", body), publicKey: `ssh-ed25519 ${blob.toString("base64")}` };
}

function ecdsa(): HostKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const jwk = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? "", "base64url"), Buffer.from(jwk.y ?? "", "base64url")]);
  const blob = Buffer.concat([sshString("ecdsa-sha2-nistp256"), sshString("nistp256"), sshString(point)]);
  return { privateKey: privateKey.export({ format: "pem", type: "sec1" }).toString(), publicKey: `ecdsa-sha2-nistp256 ${blob.toString("base64")}` };
}

/** A new host key pair of the type. */
export function generateHostKey(type: InProcessKeyType): HostKeyPair {
  return type === "ed25519" ? ed25519() : ecdsa();
}
