// A kubelet's serving certificate from the cluster CA (CN system:node:<name>, SANs its addresses and
// host name), for tests and the local landscape until nodes get theirs through CSRs. The API server
// verifies it (--kubelet-certificate-authority, default the cluster CA) when it connects to the kubelet.
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { issueServingCertificate, type CertificateAuthority, type IssuedCertificate } from "./issue.ts";
import { writeAtomic } from "./pki.ts";

export interface KubeletServingCertOptions {
  nodeName: string;
  /** IP addresses and DNS names the API server may use to reach the kubelet (InternalIP, host name). */
  hosts: string[];
  now?: Date;
}

export function issueKubeletServingCertificate(ca: CertificateAuthority, o: KubeletServingCertOptions): Promise<IssuedCertificate> {
  return issueServingCertificate(ca, { hosts: [...o.hosts, o.nodeName], commonName: `system:node:${o.nodeName}`, now: o.now });
}

export interface KubeletTlsFiles {
  /** --tls-cert-file, --tls-private-key-file, --client-ca-file of the kubelet server. */
  certFile: string;
  keyFile: string;
  clientCAFile: string;
}

/** Issues a node's kubelet certificate from the CA in an API server's PKI directory and writes kubelet.crt, kubelet.key and ca.crt to outDir. */
export async function writeKubeletServingCertificate(pkiDir: string, outDir: string, o: KubeletServingCertOptions): Promise<KubeletTlsFiles> {
  const ca = { certPem: await readFile(join(pkiDir, "ca.crt"), "utf8"), keyPem: await readFile(join(pkiDir, "ca.key"), "utf8") };
  const pair = await issueKubeletServingCertificate(ca, o);
  await mkdir(outDir, { recursive: true, mode: 0o700 });
  const files = { certFile: join(outDir, "kubelet.crt"), keyFile: join(outDir, "kubelet.key"), clientCAFile: join(outDir, "ca.crt") };
  await writeAtomic(files.keyFile, pair.keyPem, 0o600);
  await writeAtomic(files.certFile, pair.certPem, 0o644);
  await writeAtomic(files.clientCAFile, ca.certPem, 0o644);
  return files;
}
