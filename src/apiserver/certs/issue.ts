// Certificate issuing: a self-signed CA, serving certificates (SANs for host names and IPs) and
// client certificates (CN = user, O = groups, as kube-apiserver's x509 authenticator reads them).
import { isIP } from "node:net";
import { randomBytes, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { type KeyAlgorithm, EC_P256, exportKeyPairPem, generateKeyPair, importPrivateKey } from "./keys.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a little in the past so that small clock skew between processes does not reject them. */
const BACKDATE_MS = 5 * 60 * 1000;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

export interface CaOptions {
  commonName?: string;
  /** Default 3650 (10 years). */
  days?: number;
  alg?: KeyAlgorithm;
  now?: Date;
}

export async function createCertificateAuthority(opts: CaOptions = {}): Promise<CertificateAuthority> {
  const alg = opts.alg ?? EC_P256;
  const keys = await generateKeyPair(alg);
  const now = opts.now ?? new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [opts.commonName ?? "gardener-apiserver-ca"] }],
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + (opts.days ?? 3650) * DAY_MS),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pems = await exportKeyPairPem(keys);
  return { certPem: cert.toString("pem") + "\n", keyPem: pems.privateKeyPem };
}

export interface ServingCertOptions {
  /** DNS names and IP addresses (v4 or v6); each becomes a SAN of the right type. */
  hosts: string[];
  commonName?: string;
  /** Default 365. */
  days?: number;
  alg?: KeyAlgorithm;
  now?: Date;
}

export async function issueServingCertificate(ca: CertificateAuthority, opts: ServingCertOptions): Promise<IssuedCertificate> {
  const names: x509.JsonGeneralName[] = [];
  for (const h of uniq(opts.hosts)) names.push({ type: isIP(h) ? "ip" : "dns", value: h });
  return issue(ca, {
    subject: [{ CN: [opts.commonName ?? opts.hosts[0] ?? "gardener-apiserver"] }],
    days: opts.days ?? 365,
    alg: opts.alg,
    now: opts.now,
    usage: x509.ExtendedKeyUsage.serverAuth,
    extra: [new x509.SubjectAlternativeNameExtension(names, false)],
  });
}

export interface ClientCertOptions {
  commonName: string;
  organizations?: string[];
  /** Default 365. */
  days?: number;
  /** Validity in milliseconds from `now`, in place of `days` (short-lived credentials). */
  validForMs?: number;
  alg?: KeyAlgorithm;
  now?: Date;
}

export async function issueClientCertificate(ca: CertificateAuthority, opts: ClientCertOptions): Promise<IssuedCertificate> {
  const subject: x509.JsonName = [];
  for (const o of opts.organizations ?? []) subject.push({ O: [o] });
  subject.push({ CN: [opts.commonName] });
  return issue(ca, {
    subject,
    days: opts.validForMs !== undefined ? opts.validForMs / DAY_MS : opts.days ?? 365,
    alg: opts.alg,
    now: opts.now,
    usage: x509.ExtendedKeyUsage.clientAuth,
    extra: [],
  });
}

interface IssueParams {
  subject: x509.JsonName;
  days: number;
  alg: KeyAlgorithm | undefined;
  now: Date | undefined;
  usage: x509.ExtendedKeyUsage;
  extra: x509.Extension[];
}

async function issue(ca: CertificateAuthority, p: IssueParams): Promise<IssuedCertificate> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const { key: caKey, alg: caAlg } = await importPrivateKey(ca.keyPem);
  const alg = p.alg ?? EC_P256;
  const keys = await generateKeyPair(alg);
  const now = p.now ?? new Date();
  // Key encipherment only makes sense for RSA leaf keys (TLS RSA key exchange).
  const keyUsage =
    alg.name === "ECDSA" ? x509.KeyUsageFlags.digitalSignature : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: p.subject,
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: minDate(new Date(now.getTime() + p.days * DAY_MS), caCert.notAfter),
    signingAlgorithm: caAlg,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(keyUsage, true),
      new x509.ExtendedKeyUsageExtension([p.usage], false),
      await x509.AuthorityKeyIdentifierExtension.create(await caCert.publicKey.export(webcrypto), false, webcrypto),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...p.extra,
    ],
  });
  const pems = await exportKeyPairPem(keys);
  return { certPem: cert.toString("pem") + "\n", keyPem: pems.privateKeyPem };
}

/** A random positive 128-bit serial (Go rejects negative serials). */
function serialNumber(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString("hex");
}

function minDate(a: Date, b: Date): Date {
  return a.getTime() < b.getTime() ? a : b;
}

function uniq(xs: string[]): string[] {
  return [...new Set(xs.filter((x) => x !== ""))];
}
