// Minimal JWS compact serialization with node:crypto: ES256/ES384 for EC keys (raw r||s
// signatures, RFC 7518 §3.4) and RS256 for RSA keys. Only what service-account tokens need.
import { type KeyObject, createHash, createPrivateKey, createPublicKey, sign, verify, X509Certificate } from "node:crypto";
import { isRecord } from "../../utils/guards.ts";

export type JwtAlg = "ES256" | "ES384" | "RS256";

export interface JwtHeader {
  alg: string;
  kid?: string;
  typ?: string;
}

export interface DecodedJwt {
  header: JwtHeader;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

const HASH: Record<JwtAlg, string> = { ES256: "sha256", ES384: "sha384", RS256: "sha256" };

export function algForKey(key: KeyObject): JwtAlg {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    if (curve === "secp384r1") return "ES384";
  }
  throw new Error(`unsupported service-account key type ${key.asymmetricKeyType ?? "?"}`);
}

/** kube's key id: unpadded base64url of the SHA-256 of the public key's SPKI DER. */
export function keyId(key: KeyObject): string {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256").update(pub.export({ format: "der", type: "spki" })).digest("base64url");
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64url");

export function signJwt(claims: Record<string, unknown>, privateKey: KeyObject, kid = keyId(privateKey)): string {
  const alg = algForKey(privateKey);
  const signingInput = `${b64url({ alg, kid })}.${b64url(claims)}`;
  const sig = sign(HASH[alg], Buffer.from(signingInput), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${signingInput}.${sig.toString("base64url")}`;
}

/** Parses without verifying. undefined when the text is not a well-formed JWS. */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8")) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as unknown;
    if (!isRecord(header) || typeof header.alg !== "string" || !isRecord(claims)) return undefined;
    return {
      header: header as unknown as JwtHeader,
      claims,
      signingInput: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2]!, "base64url"),
    };
  } catch {
    return undefined;
  }
}

/** True when one of the keys (whose type matches the header's alg) verifies the signature. */
export function verifyJwtSignature(jwt: DecodedJwt, publicKeys: KeyObject[]): boolean {
  for (const key of publicKeys) {
    let alg: JwtAlg;
    try {
      alg = algForKey(key);
    } catch {
      continue;
    }
    if (alg !== jwt.header.alg) continue;
    if (jwt.header.kid && jwt.header.kid !== keyId(key)) continue;
    const ok = verify(HASH[alg], Buffer.from(jwt.signingInput), { key, dsaEncoding: "ieee-p1363" }, jwt.signature);
    if (ok) return true;
  }
  return false;
}

/**
 * Public keys from PEM text as `--service-account-key-file` allows: public keys, private keys
 * (their public half) and certificates, several blocks per file.
 */
export function parsePublicKeys(pemText: string): KeyObject[] {
  const blocks = pemText.match(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    const label = /-----BEGIN ([A-Z ]+)-----/.exec(block)![1]!;
    if (label === "CERTIFICATE") keys.push(new X509Certificate(block).publicKey);
    else if (label.endsWith("PRIVATE KEY")) keys.push(createPublicKey(createPrivateKey(block)));
    else if (label.endsWith("PUBLIC KEY")) keys.push(createPublicKey(block));
  }
  if (keys.length === 0) throw new Error("no public keys found (expected PEM public keys, private keys or certificates)");
  return keys;
}

