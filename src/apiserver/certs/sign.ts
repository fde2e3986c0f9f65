// Signing a CertificateSigningRequest with the cluster CA (kube-controller-manager's local signer,
// pkg/controller/certificates/authority): the request's subject and SANs, the requested key
// usages, valid from 5 minutes ago for the given duration (never beyond the CA).
import { randomBytes, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import type { ParsedCSR } from "../../api/certificates/csr.ts";
import type { CertificateAuthority } from "./issue.ts";
import { importPrivateKey } from "./keys.ts";

const BACKDATE_MS = 5 * 60 * 1000;

const KEY_USAGE_BITS: Record<string, number> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement,
  "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign,
  "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly,
  "decipher only": x509.KeyUsageFlags.decipherOnly,
};

const EXT_KEY_USAGES: Record<string, string> = {
  any: "2.5.29.37.0",
  "server auth": x509.ExtendedKeyUsage.serverAuth,
  "client auth": x509.ExtendedKeyUsage.clientAuth,
  "code signing": x509.ExtendedKeyUsage.codeSigning,
  "email protection": x509.ExtendedKeyUsage.emailProtection,
  "s/mime": x509.ExtendedKeyUsage.emailProtection,
  "ipsec end system": "1.3.6.1.5.5.7.3.5",
  "ipsec tunnel": "1.3.6.1.5.5.7.3.6",
  "ipsec user": "1.3.6.1.5.5.7.3.7",
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  "ocsp signing": x509.ExtendedKeyUsage.ocspSigning,
  "microsoft sgc": "1.3.6.1.4.1.311.10.3.3",
  "netscape sgc": "2.16.840.1.113730.4.1",
};

export interface SignOptions {
  usages: readonly string[];
  durationMs: number;
  now: Date;
}

/** The issued certificate (PEM) for a parsed, verified request. */
export async function signCSR(ca: CertificateAuthority, req: ParsedCSR, o: SignOptions): Promise<string> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const { key: caKey, alg: caAlg } = await importPrivateKey(ca.keyPem);
  let bits = 0;
  const ext: string[] = [];
  for (const u of o.usages) {
    bits |= KEY_USAGE_BITS[u] ?? 0;
    const oid = EXT_KEY_USAGES[u];
    if (oid && !ext.includes(oid)) ext.push(oid);
  }
  const notAfter = new Date(Math.min(o.now.getTime() + o.durationMs, caCert.notAfter.getTime()));
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(bits, true),
    await x509.AuthorityKeyIdentifierExtension.create(await caCert.publicKey.export(webcrypto), false, webcrypto),
  ];
  if (ext.length) extensions.push(new x509.ExtendedKeyUsageExtension(ext, false));
  const san = req.raw.getExtension("2.5.29.17");
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.rawData));
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString("hex"),
    subject: req.raw.subjectName,
    issuer: caCert.subjectName,
    notBefore: new Date(o.now.getTime() - BACKDATE_MS),
    notAfter,
    signingAlgorithm: caAlg,
    publicKey: req.raw.publicKey,
    signingKey: caKey,
    extensions,
  });
  return cert.toString("pem") + "\n";
}
