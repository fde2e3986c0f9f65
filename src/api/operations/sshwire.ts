// The SSH wire format of public keys and certificates (RFC 4253 §6.6, RFC 5656, RFC 8709,
// OpenSSH PROTOCOL.certkeys and PROTOCOL.u2f), parsed with Buffer only. A blob is well formed when
// every field of its type is present and sane and nothing follows the last one.
import { createPublicKey } from "node:crypto";

export class SSHKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SSHKeyError";
  }
}

export const CERT_SUFFIX = "-cert-v01@openssh.com";

/** OpenSSH's largest public key or certificate blob (SSH_MAX_PUBKEY_BYTES). */
export const MAX_BLOB_BYTES = 16 * 1024;
/** OpenSSH's largest RSA modulus (SSH_RSA_MAXIMUM_MODULUS_SIZE) and smallest it accepts. */
export const MAX_RSA_BITS = 16 * 1024;
const MIN_RSA_BITS = 1024;

/** Plain key types with the size of their curve coordinates, where they have one. */
const ECDSA_CURVES: Record<string, { curve: string; jwk: string; coord: number }> = {
  "ecdsa-sha2-nistp256": { curve: "nistp256", jwk: "P-256", coord: 32 },
  "ecdsa-sha2-nistp384": { curve: "nistp384", jwk: "P-384", coord: 48 },
  "ecdsa-sha2-nistp521": { curve: "nistp521", jwk: "P-521", coord: 66 },
  "sk-ecdsa-sha2-nistp256@openssh.com": { curve: "nistp256", jwk: "P-256", coord: 32 },
};

export const PLAIN_KEY_TYPES = [
  "ssh-rsa",
  "ssh-dss",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ssh-ed25519",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "sk-ssh-ed25519@openssh.com",
] as const;

/** The accepted types (docs/bastion.md#d6-one-key-and-injection-safe-userdata): the plain ones and their `-cert-v01@openssh.com` forms. */
export const SSH_KEY_TYPES: readonly string[] = [
  ...PLAIN_KEY_TYPES,
  ...PLAIN_KEY_TYPES.map((t) => certTypeOf(t)),
];

/** `ssh-ed25519` -> `ssh-ed25519-cert-v01@openssh.com`; `sk-ssh-ed25519@openssh.com` -> `sk-ssh-ed25519-cert-v01@openssh.com`. */
export function certTypeOf(plain: string): string {
  return plain.endsWith("@openssh.com") ? plain.replace(/@openssh\.com$/, CERT_SUFFIX) : `${plain}${CERT_SUFFIX}`;
}

function plainTypeOfCert(cert: string): string | undefined {
  return PLAIN_KEY_TYPES.find((t) => certTypeOf(t) === cert);
}

/** Sequential reader of SSH wire fields; every read throws SSHKeyError when the data ends early. */
export class WireReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  private take(n: number): Buffer {
    if (n > this.buf.length - this.offset) throw new SSHKeyError("truncated key data");
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  uint8(): number {
    return this.take(1)[0]!;
  }
  uint32(): number {
    return this.take(4).readUInt32BE(0);
  }
  uint64(): bigint {
    return this.take(8).readBigUInt64BE(0);
  }
  string(): Buffer {
    return this.take(this.uint32());
  }
  text(): string {
    return this.string().toString("latin1");
  }
  /** A non-negative mpint (two's complement, big-endian) of at most maxBits bits, as a BigInt. */
  mpint(maxBits: number): bigint {
    const b = this.string();
    if (b.length === 0) return 0n;
    if (b[0]! & 0x80) throw new SSHKeyError("negative integer in key data");
    // One leading zero byte keeps the sign of a number whose top bit is set.
    if (b.length > Math.ceil(maxBits / 8) + 1) throw new SSHKeyError(`integer in key data longer than ${maxBits} bits`);
    return BigInt(`0x${b.toString("hex")}`);
  }
  remaining(): number {
    return this.buf.length - this.offset;
  }
  end(): void {
    if (this.remaining() !== 0) throw new SSHKeyError("trailing data after key");
  }
}

const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

function readRSA(r: WireReader): void {
  const e = r.mpint(24);
  const n = r.mpint(MAX_RSA_BITS);
  if (bitLength(e) > 24 || e < 3n || e % 2n === 0n) throw new SSHKeyError("invalid RSA exponent");
  // OpenSSH refuses moduli outside 1024..16384 bits, so such a key could never log in.
  const bits = bitLength(n);
  if (bits < MIN_RSA_BITS) throw new SSHKeyError("RSA modulus too small");
  if (bits > MAX_RSA_BITS) throw new SSHKeyError("RSA modulus too large");
}

function readDSA(r: WireReader): void {
  const [p, q, g, y] = [r.mpint(1024), r.mpint(160), r.mpint(1024), r.mpint(1024)];
  if (bitLength(p) !== 1024 || bitLength(q) !== 160) throw new SSHKeyError("unsupported DSA key size");
  if (g <= 1n || g >= p || y <= 1n || y >= p) throw new SSHKeyError("invalid DSA key");
}

function readECDSA(r: WireReader, type: string): void {
  const spec = ECDSA_CURVES[type]!;
  if (r.text() !== spec.curve) throw new SSHKeyError("ECDSA curve does not match key type");
  const point = r.string();
  if (point.length !== 1 + 2 * spec.coord || point[0] !== 0x04) throw new SSHKeyError("invalid ECDSA point");
  const x = point.subarray(1, 1 + spec.coord).toString("base64url");
  const y = point.subarray(1 + spec.coord).toString("base64url");
  try {
    createPublicKey({ key: { kty: "EC", crv: spec.jwk, x, y }, format: "jwk" });
  } catch {
    throw new SSHKeyError("ECDSA point is not on the curve");
  }
}

function readEd25519(r: WireReader): void {
  if (r.string().length !== 32) throw new SSHKeyError("invalid Ed25519 key size");
}

/** The type-specific fields of a plain key type. */
function readKeyFields(r: WireReader, type: string): void {
  switch (type) {
    case "ssh-rsa":
      return readRSA(r);
    case "ssh-dss":
      return readDSA(r);
    case "ssh-ed25519":
      return readEd25519(r);
    case "sk-ssh-ed25519@openssh.com":
      readEd25519(r);
      r.string(); // application
      return;
    case "sk-ecdsa-sha2-nistp256@openssh.com":
      readECDSA(r, type);
      r.string(); // application
      return;
    default:
      if (ECDSA_CURVES[type]) return readECDSA(r, type);
      throw new SSHKeyError(`unsupported key type ${JSON.stringify(type)}`);
  }
}

/** A packed list of strings (certificate principals), each a string field. */
function readStringList(buf: Buffer): void {
  const r = new WireReader(buf);
  while (r.remaining() > 0) r.string();
}

/** Critical options and extensions: pairs of name and data strings. */
function readOptions(buf: Buffer): void {
  const r = new WireReader(buf);
  while (r.remaining() > 0) {
    r.string();
    r.string();
  }
}

function readSignature(buf: Buffer): void {
  const r = new WireReader(buf);
  const format = r.text();
  r.string();
  if (format.startsWith("sk-")) {
    r.uint8(); // flags
    r.uint32(); // counter
  }
  r.end();
}

function readCertFields(r: WireReader, plain: string): void {
  r.string(); // nonce
  readKeyFields(r, plain);
  r.uint64(); // serial
  const certType = r.uint32();
  if (certType !== 1 && certType !== 2) throw new SSHKeyError("invalid certificate type");
  r.string(); // key id
  readStringList(r.string());
  r.uint64(); // valid after
  r.uint64(); // valid before
  readOptions(r.string()); // critical options
  readOptions(r.string()); // extensions
  r.string(); // reserved
  const signatureKey = parsePublicKeyBlob(r.string());
  if (signatureKey.type.endsWith(CERT_SUFFIX)) throw new SSHKeyError("signature key may not be a certificate");
  readSignature(r.string());
}

/** Parses a public key or certificate blob; returns its embedded type. Throws SSHKeyError. */
export function parsePublicKeyBlob(blob: Buffer): { type: string } {
  if (blob.length > MAX_BLOB_BYTES) throw new SSHKeyError(`key data longer than ${MAX_BLOB_BYTES} bytes`);
  const r = new WireReader(blob);
  const type = r.text();
  const plain = plainTypeOfCert(type);
  if (plain) readCertFields(r, plain);
  else if ((PLAIN_KEY_TYPES as readonly string[]).includes(type)) readKeyFields(r, type);
  else throw new SSHKeyError(`unsupported key type ${JSON.stringify(type)}`);
  r.end();
  return { type };
}
