// Pure helpers over CertificateSigningRequests (pkg/apis/certificates helpers.go): parsing a PEM
// "CERTIFICATE REQUEST" and checking its signature (synchronously, so that validation can use it),
// what the kubelet client and serving signers accept, and the request's conditions.
import { createPublicKey, verify } from "node:crypto";
import * as x509 from "@peculiar/x509";
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from "../../apis/certificates/v1/types.ts";

/** The largest PEM request accepted (bounds parsing work; real requests are ~1 KiB). */
export const MAX_REQUEST_BYTES = 64 * 1024;
export const NODE_USER_PREFIX = "system:node:";
export const NODES_GROUP = "system:nodes";

export interface ParsedCSR {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** SPKI DER of the requested key. */
  publicKeySpki: ArrayBuffer;
  raw: x509.Pkcs10CertificateRequest;
}

export class CSRParseError extends Error {}

/** Parses PEM text (the decoded spec.request) and checks the request's self-signature. Throws CSRParseError. */
export function parseCSR(pem: string | Buffer): ParsedCSR {
  const text = typeof pem === "string" ? pem : pem.toString("latin1");
  if (text.length > MAX_REQUEST_BYTES) throw new CSRParseError(`request must not be larger than ${MAX_REQUEST_BYTES} bytes`);
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END \1-----/.exec(text);
  if (!m) throw new CSRParseError("PEM block type must be CERTIFICATE REQUEST");
  if (m[1] !== "CERTIFICATE REQUEST") throw new CSRParseError("PEM block type must be CERTIFICATE REQUEST");
  const der = Buffer.from(m[2]!.replace(/\s/g, ""), "base64");
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(der);
  } catch (err) {
    throw new CSRParseError(`x509: malformed certificate request: ${(err as Error).message}`);
  }
  checkSignature(csr, der);
  const names = sans(csr);
  const field = (name: string) => {
    try {
      return csr.subjectName.getField(name);
    } catch {
      return [];
    }
  };
  return {
    commonName: field("CN")[0] ?? "",
    organizations: field("O"),
    dnsNames: names.filter((n) => n.type === "dns").map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === "ip").map((n) => n.value),
    emailAddresses: names.filter((n) => n.type === "email").map((n) => n.value),
    uris: names.filter((n) => n.type === "url").map((n) => n.value),
    publicKeySpki: csr.publicKey.rawData,
    raw: csr,
  };
}

/** Parses the base64 spec.request of a CSR object. */
export function parseCSRObject(csr: Pick<CertificateSigningRequest, "spec">): ParsedCSR {
  const b64 = typeof csr.spec?.request === "string" ? csr.spec.request : "";
  if (b64.length > (MAX_REQUEST_BYTES * 4) / 3 + 4) throw new CSRParseError(`request must not be larger than ${MAX_REQUEST_BYTES} bytes`);
  return parseCSR(Buffer.from(b64, "base64"));
}

function sans(csr: x509.Pkcs10CertificateRequest): { type: string; value: string }[] {
  const ext = csr.getExtension("2.5.29.17");
  if (!ext) return [];
  try {
    return new x509.SubjectAlternativeNameExtension(ext.rawData).names.toJSON().map((n) => ({ type: n.type, value: n.value }));
  } catch (err) {
    throw new CSRParseError(`x509: malformed subject alternative names: ${(err as Error).message}`);
  }
}

const SIGNATURE_HASHES: Record<string, string | null> = {
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
  "1.2.840.10045.4.3.2": "sha256",
  "1.2.840.10045.4.3.3": "sha384",
  "1.2.840.10045.4.3.4": "sha512",
  "1.3.101.112": null, // Ed25519
};

function checkSignature(csr: x509.Pkcs10CertificateRequest, der: Buffer): void {
  const parts = derChildren(der);
  if (parts.length !== 3) throw new CSRParseError("x509: malformed certificate request");
  const [tbs, alg, sig] = parts as [Buffer, Buffer, Buffer];
  const oid = algorithmOid(alg);
  if (!(oid in SIGNATURE_HASHES)) throw new CSRParseError("x509: cannot verify signature: algorithm unimplemented");
  // BIT STRING contents: one byte of unused bits, then the signature.
  const signature = sig.subarray(1);
  let ok = false;
  try {
    const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: "der", type: "spki" });
    ok = verify(SIGNATURE_HASHES[oid] ?? null, tbs, key, signature);
  } catch {
    ok = false;
  }
  if (ok) return;
  if (oid.startsWith("1.2.840.10045")) throw new CSRParseError("x509: ECDSA verification failure");
  throw new CSRParseError(oid === "1.3.101.112" ? "x509: Ed25519 verification failure" : "crypto/rsa: verification error");
}

/** The DER TLVs inside the outer SEQUENCE: [whole TLV of each child] (tbs keeps its header; BIT STRING gives contents). */
function derChildren(der: Buffer): Buffer[] {
  const outer = readTLV(der, 0);
  if (!outer || der[0] !== 0x30) return [];
  const out: Buffer[] = [];
  let pos = outer.contentStart;
  while (pos < outer.end) {
    const t = readTLV(der, pos);
    if (!t) return [];
    // The tbs is verified with its header; the others are used by their contents.
    out.push(out.length === 0 ? der.subarray(pos, t.end) : der.subarray(t.contentStart, t.end));
    pos = t.end;
  }
  return out;
}

function readTLV(buf: Buffer, pos: number): { contentStart: number; end: number } | undefined {
  if (pos + 2 > buf.length) return undefined;
  let len = buf[pos + 1]!;
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > buf.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  if (start + len > buf.length) return undefined;
  return { contentStart: start, end: start + len };
}

/** The OID of an AlgorithmIdentifier's contents (its first element). */
function algorithmOid(content: Buffer): string {
  const t = readTLV(content, 0);
  if (!t || content[0] !== 0x06) return "";
  const b = content.subarray(t.contentStart, t.end);
  if (b.length === 0) return "";
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (const byte of b.subarray(1)) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set(a).size === a.length && a.every((x) => b.includes(x));

const CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"];
const CLIENT_USAGES_NO_RSA = ["digital signature", "client auth"];
const SERVING_USAGES = ["digital signature", "key encipherment", "server auth"];
const SERVING_USAGES_NO_RSA = ["digital signature", "server auth"];

/** Why a request is not a kubelet client certificate request (ValidateKubeletClientCSR), or undefined. */
export function kubeletClientProblem(req: ParsedCSR, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return "subject organization is not system:nodes";
  if (req.dnsNames.length > 0) return "DNS subjectAltNames are not allowed";
  if (req.emailAddresses.length > 0) return "Email subjectAltNames are not allowed";
  if (req.ipAddresses.length > 0) return "IP subjectAltNames are not allowed";
  if (req.uris.length > 0) return "URI subjectAltNames are not allowed";
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return "subject common name does not begin with system:node:";
  if (!sameSet(usages, CLIENT_USAGES) && !sameSet(usages, CLIENT_USAGES_NO_RSA)) return `usages did not match [${CLIENT_USAGES.slice().sort().join(" ")}]`;
  return undefined;
}

/** Why a request is not a kubelet serving certificate request (ValidateKubeletServingCSR), or undefined. */
export function kubeletServingProblem(req: ParsedCSR, usages: readonly string[]): string | undefined {
  if (!sameSet(usages, SERVING_USAGES) && !sameSet(usages, SERVING_USAGES_NO_RSA)) return `usages did not match [${SERVING_USAGES.slice().sort().join(" ")}]`;
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES_GROUP) return "subject organization is not system:nodes";
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return "DNS or IP subjectAltName is required";
  if (req.emailAddresses.length > 0) return "Email subjectAltNames are not allowed";
  if (req.uris.length > 0) return "URI subjectAltNames are not allowed";
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return "subject common name does not begin with system:node:";
  return undefined;
}

export function conditionOf(csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition | undefined {
  return (csr.status?.conditions ?? []).find((c) => c.type === type);
}

export function hasTrueCondition(csr: CertificateSigningRequest, type: string): boolean {
  return conditionOf(csr, type)?.status === "True";
}

/** kubectl get csr's CONDITION: Approved/Denied/Pending, then ",Failed" and ",Issued". */
export function csrConditionText(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let s = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) s += ",Failed";
  if (csr.status?.certificate) s += ",Issued";
  return s;
}
