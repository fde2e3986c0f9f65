// The node key pair's material (docs/maintenance-and-rotation.md#key-pair-secrets, docs/maintenance-and-rotation.md#key-validation): RSA 4096, the private key
// as PKCS#1 PEM (`RSA PRIVATE KEY`, usable with `ssh -i`) and the public key as one OpenSSH line
// `ssh-rsa <base64>` whose blob is the SSH wire encoding (string "ssh-rsa", mpint e, mpint n).
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPair } from "node:crypto";
import { promisify } from "node:util";
import { SSHKeyError, parsePublicKeyBlob } from "../../../api/operations/sshwire.ts";

export const DATA_PRIVATE_KEY = "id_rsa";
export const DATA_PUBLIC_KEY = "id_rsa.pub";
export const RSA_BITS = 4096;

export interface KeyPair {
  /** PEM, PKCS#1. */
  privateKey: string;
  /** `ssh-rsa <base64>`, no comment, no newline. */
  publicKey: string;
}

export type KeyGenerator = () => Promise<KeyPair>;

const generate = promisify(generateKeyPair);

/** An SSH `string` field: uint32 length, then the bytes. */
function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length, 0);
  return Buffer.concat([len, b]);
}

/** An SSH `mpint` of a non-negative big-endian magnitude: leading zeros dropped, 0x00 prepended if the top bit is set. */
function sshMpint(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length && magnitude[i] === 0) i++;
  let b = magnitude.subarray(i);
  if (b.length > 0 && b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return sshString(b);
}

/** The OpenSSH line of an RSA public (or private) key. */
export function openSSHPublicKey(key: KeyObject): string {
  if (key.asymmetricKeyType !== "rsa") throw new SSHKeyError(`not an RSA key (${key.asymmetricKeyType ?? "secret"})`);
  const jwk = (key.type === "private" ? createPublicKey(key) : key).export({ format: "jwk" });
  if (!jwk.n || !jwk.e) throw new SSHKeyError("RSA key without modulus or exponent");
  const blob = Buffer.concat([sshString(Buffer.from("ssh-rsa")), sshMpint(Buffer.from(jwk.e, "base64url")), sshMpint(Buffer.from(jwk.n, "base64url"))]);
  return `ssh-rsa ${blob.toString("base64")}`;
}

/** A fresh RSA key pair (4096 bits unless told otherwise; tests of other modules may use less). */
export async function generateRSAKeyPair(bits: number = RSA_BITS): Promise<KeyPair> {
  const { privateKey } = await generate("rsa", { modulusLength: bits, publicExponent: 0x10001 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  return { privateKey: pem, publicKey: openSSHPublicKey(privateKey) };
}

const PUBLIC_LINE = /^ssh-rsa ([A-Za-z0-9+/]+={0,2})$/;

/**
 * Checks docs/maintenance-and-rotation.md#key-validation: `id_rsa` is a PKCS#1 RSA private key, `id_rsa.pub` exactly one line `ssh-rsa <base64>`
 * whose blob is a well-formed `ssh-rsa` key, and it is the public half of `id_rsa`. Returns the reason
 * when invalid, undefined when valid.
 */
export function keyPairProblem(pair: Partial<KeyPair>): string | undefined {
  if (!pair.privateKey) return `${DATA_PRIVATE_KEY} is missing`;
  if (!pair.publicKey) return `${DATA_PUBLIC_KEY} is missing`;
  if (!pair.privateKey.trimStart().startsWith("-----BEGIN RSA PRIVATE KEY-----")) return `${DATA_PRIVATE_KEY} is not a PKCS#1 PEM block (RSA PRIVATE KEY)`;
  let priv: KeyObject;
  try {
    priv = createPrivateKey({ key: pair.privateKey, format: "pem" });
  } catch (err) {
    return `${DATA_PRIVATE_KEY} cannot be parsed: ${(err as Error).message}`;
  }
  if (priv.asymmetricKeyType !== "rsa") return `${DATA_PRIVATE_KEY} is not an RSA key`;
  const m = PUBLIC_LINE.exec(pair.publicKey);
  if (!m) return `${DATA_PUBLIC_KEY} is not exactly one line "ssh-rsa <base64>"`;
  try {
    if (parsePublicKeyBlob(Buffer.from(m[1]!, "base64")).type !== "ssh-rsa") return `${DATA_PUBLIC_KEY} is not an ssh-rsa key`;
  } catch (err) {
    return `${DATA_PUBLIC_KEY} is malformed: ${(err as Error).message}`;
  }
  if (openSSHPublicKey(priv) !== pair.publicKey) return `${DATA_PUBLIC_KEY} is not the public half of ${DATA_PRIVATE_KEY}`;
  return undefined;
}

/** Secret data (base64 values) of a key pair. */
export function keyPairData(pair: KeyPair): Record<string, string> {
  return { [DATA_PRIVATE_KEY]: Buffer.from(pair.privateKey).toString("base64"), [DATA_PUBLIC_KEY]: Buffer.from(pair.publicKey).toString("base64") };
}

/** The key pair in Secret data; missing keys come back as "". */
export function keyPairOf(data: Record<string, string> | undefined): KeyPair {
  const get = (k: string): string => Buffer.from(data?.[k] ?? "", "base64").toString("utf8");
  return { privateKey: get(DATA_PRIVATE_KEY), publicKey: get(DATA_PUBLIC_KEY) };
}
