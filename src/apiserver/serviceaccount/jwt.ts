// JWS compact serialization through `jose`: ES256/ES384 for EC keys and RS256 for RSA keys, with
// kube's key id (the hash of the public key's SPKI DER). Only what service-account tokens need.
import { type KeyObject, createHash, createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { CompactSign, compactVerify, decodeJwt as decodePayload, decodeProtectedHeader, errors } from "jose";
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
  /** The compact serialization it was decoded from. */
  token: string;
}

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

/** A JWS whose header is `{"alg":…,"kid":…}` and whose payload is the claims' JSON, in their order. */
export async function signJwt(claims: Record<string, unknown>, privateKey: KeyObject, kid = keyId(privateKey)): Promise<string> {
  const payload = Buffer.from(JSON.stringify(claims), "utf8");
  return new CompactSign(payload).setProtectedHeader({ alg: algForKey(privateKey), kid }).sign(privateKey);
}

/** Parses without verifying. undefined when the text is not a well-formed JWS with a JSON object payload. */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const header = decodeProtectedHeader(token);
    const claims = decodePayload(token) as unknown;
    if (typeof header.alg !== "string" || !isRecord(claims)) return undefined;
    return { header: header as JwtHeader, claims, token };
  } catch {
    return undefined;
  }
}

/** True when one of the keys (whose type matches the header's alg and kid) verifies the signature. */
export async function verifyJwtSignature(jwt: DecodedJwt, publicKeys: KeyObject[]): Promise<boolean> {
  for (const key of publicKeys) {
    let alg: JwtAlg;
    try {
      alg = algForKey(key);
    } catch {
      continue;
    }
    if (alg !== jwt.header.alg) continue;
    if (jwt.header.kid && jwt.header.kid !== keyId(key)) continue;
    try {
      await compactVerify(jwt.token, key, { algorithms: [alg] });
      return true;
    } catch (err) {
      if (!(err instanceof errors.JOSEError)) throw err;
    }
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

