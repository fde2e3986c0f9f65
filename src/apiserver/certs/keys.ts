// Key pairs for certificates and token signing: ECDSA P-256 by default (fast to generate, and
// accepted by Go's TLS stack, i.e. kubectl). Private keys are stored as PKCS#8 PEM
// ("PRIVATE KEY"), public keys as SPKI PEM ("PUBLIC KEY").
import { createPrivateKey, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto);

export type KeyAlgorithm = { name: "ECDSA"; namedCurve: "P-256" | "P-384"; hash: "SHA-256" | "SHA-384" } | RsaAlgorithm;

interface RsaAlgorithm {
  name: "RSASSA-PKCS1-v1_5";
  hash: "SHA-256";
  modulusLength?: number;
  publicExponent?: Uint8Array;
}

export const EC_P256: KeyAlgorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

export interface PemKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

/** A new extractable key pair; RSA keys are 2048 bit with exponent 65537. */
export async function generateKeyPair(alg: KeyAlgorithm = EC_P256): Promise<CryptoKeyPair> {
  const params =
    alg.name === "ECDSA" ? alg : { ...alg, modulusLength: alg.modulusLength ?? 2048, publicExponent: alg.publicExponent ?? new Uint8Array([1, 0, 1]) };
  return (await webcrypto.subtle.generateKey(params, true, ["sign", "verify"])) as CryptoKeyPair;
}

export async function exportKeyPairPem(keys: CryptoKeyPair): Promise<PemKeyPair> {
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  const spki = await webcrypto.subtle.exportKey("spki", keys.publicKey);
  return { privateKeyPem: toPem("PRIVATE KEY", pkcs8), publicKeyPem: toPem("PUBLIC KEY", spki) };
}

/** The webcrypto algorithm of a PEM private key (PKCS#8, SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY"). */
export function algorithmOfPrivateKey(pem: string): KeyAlgorithm {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType === "rsa") return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return EC_P256;
    if (curve === "secp384r1") return { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" };
    throw new Error(`unsupported EC curve ${curve ?? "(unknown)"}`);
  }
  throw new Error(`unsupported private key type ${key.asymmetricKeyType ?? "(unknown)"}`);
}

/** Imports a PEM private key for signing, whatever its PEM encoding. */
export async function importPrivateKey(pem: string): Promise<{ key: CryptoKey; alg: KeyAlgorithm }> {
  const alg = algorithmOfPrivateKey(pem);
  // Normalise to PKCS#8 DER: webcrypto only imports PKCS#8.
  const der = createPrivateKey(pem).export({ format: "der", type: "pkcs8" });
  const key = await webcrypto.subtle.importKey("pkcs8", der, alg, true, ["sign"]);
  return { key, alg };
}

export function toPem(label: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
