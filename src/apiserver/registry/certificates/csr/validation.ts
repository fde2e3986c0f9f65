// CertificateSigningRequest validation (pkg/apis/certificates/validation): the request must be a
// PEM "CERTIFICATE REQUEST" with a valid self-signature, signerName a qualified
// `<domain>/<path>` (not the legacy signer), usages known and unique, expirationSeconds at least
// 600; conditions unique by type, Approved/Denied True and exclusive, never removed; an issued
// certificate valid PEM and never changed.
import { X509Certificate } from "node:crypto";
import { CSRParseError, parseCSRObject } from "../../../../api/certificates/csr.ts";
import {
  type CertificateSigningRequest,
  type CertificateSigningRequestCondition,
  KEY_USAGES,
  SIGNER_LEGACY_UNKNOWN,
} from "../../../../apis/certificates/v1/types.ts";
import { type FieldError, duplicate, forbidden, invalid, notSupported, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Subdomain } from "../../../../apimachinery/names/validation.ts";

export const MIN_EXPIRATION_SECONDS = 600;
const MAX_CONDITIONS = 32;
const MAX_CERTIFICATE_BYTES = 64 * 1024;

export function validateSignerName(path: string, name: unknown): FieldError[] {
  if (typeof name !== "string" || name === "") return [required(path)];
  const slash = name.indexOf("/");
  const domain = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  if (slash < 1 || !rest || name.length > 571) {
    return [invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const errs = isDNS1123Subdomain(domain).map((m) => invalid(path, name, `validating ${domain}: ${m}`));
  for (const seg of rest.split("/")) {
    if (!/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(seg)) {
      errs.push(invalid(path, name, "path segments must be qualified names of alphanumeric characters, '-', '_' or '.'"));
      break;
    }
  }
  return errs;
}

export function validateCSRSpec(csr: CertificateSigningRequest): FieldError[] {
  const errs: FieldError[] = [];
  const spec = csr.spec ?? ({} as CertificateSigningRequest["spec"]);
  if (!spec.request) errs.push(required("spec.request"));
  else {
    try {
      parseCSRObject(csr);
    } catch (err) {
      const msg = err instanceof CSRParseError ? err.message : "could not parse the request";
      errs.push(invalid("spec.request", "<value omitted>", msg));
    }
  }
  errs.push(...validateSignerName("spec.signerName", spec.signerName));
  if (spec.signerName === SIGNER_LEGACY_UNKNOWN) errs.push(invalid("spec.signerName", spec.signerName, "the legacy signerName is not allowed via this API version"));
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(required("spec.usages"));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (!KEY_USAGES.includes(u)) errs.push(notSupported(`spec.usages[${i}]`, u, [...KEY_USAGES]));
    if (seen.has(u)) errs.push(duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  });
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errs.push(invalid("spec.expirationSeconds", spec.expirationSeconds, `may not specify a duration less than ${MIN_EXPIRATION_SECONDS} seconds (10 minutes)`));
  }
  return errs;
}

export function validateConditions(conditions: CertificateSigningRequestCondition[]): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_CONDITIONS) return [invalid("status.conditions", `${conditions.length} conditions`, `must have at most ${MAX_CONDITIONS} items`)];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (!c.type) errs.push(required(`${path}.type`));
    if (!["True", "False", "Unknown"].includes(c.status)) errs.push(notSupported(`${path}.status`, c.status, ["False", "True", "Unknown"]));
    else if ((c.type === "Approved" || c.type === "Denied") && c.status !== "True") errs.push(notSupported(`${path}.status`, c.status, ["True"]));
    if (seen.has(c.type)) errs.push(duplicate(`${path}.type`, c.type));
    seen.add(c.type);
  });
  if (seen.has("Approved") && seen.has("Denied")) {
    const i = conditions.findIndex((c) => c.type === "Denied");
    errs.push(invalid(`status.conditions[${i}].type`, "Denied", "Approved and Denied conditions are mutually exclusive"));
  }
  return errs;
}

export function validateCertificate(b64: string | undefined): FieldError[] {
  if (!b64) return [];
  if (b64.length > (MAX_CERTIFICATE_BYTES * 4) / 3 + 4) return [invalid("status.certificate", "<value omitted>", `must not be larger than ${MAX_CERTIFICATE_BYTES} bytes`)];
  const pem = Buffer.from(b64, "base64").toString("latin1");
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END \1-----/g)];
  if (blocks.length === 0) return [invalid("status.certificate", "<certificate data>", "must contain at least one CERTIFICATE PEM block")];
  for (const [i, b] of blocks.entries()) {
    if (b[1] !== "CERTIFICATE") return [invalid("status.certificate", "<certificate data>", `only CERTIFICATE PEM blocks are allowed, found "${b[1]}"`)];
    try {
      new X509Certificate(b[0]);
    } catch (err) {
      return [invalid("status.certificate", "<certificate data>", `failure parsing certificate ${i + 1}: ${(err as Error).message}`)];
    }
  }
  return [];
}

/** What every update (main, status, approval) must keep: approval decisions and an issued certificate. */
export function validateCSRUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest): FieldError[] {
  const errs = validateConditions(csr.status?.conditions ?? []);
  for (const type of ["Approved", "Denied"]) {
    const had = (old.status?.conditions ?? []).some((c) => c.type === type);
    const has = (csr.status?.conditions ?? []).some((c) => c.type === type);
    if (had && !has) errs.push(forbidden("status.conditions", `updates may not remove a condition of type "${type}"`));
  }
  const oldCert = old.status?.certificate ?? "";
  const cert = csr.status?.certificate ?? "";
  if (oldCert && cert !== oldCert) errs.push(forbidden("status.certificate", "updates may not modify existing certificate content"));
  if (cert !== oldCert) errs.push(...validateCertificate(cert));
  return errs;
}
