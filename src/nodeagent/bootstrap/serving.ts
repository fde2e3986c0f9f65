// The kubelet serving certificate (signer kubernetes.io/kubelet-serving): CN system:node:<name>,
// O system:nodes, SANs the node's IP and host name; requested with the node's own identity and
// written to --tls-cert-file/--tls-private-key-file (key 0600), renewed at 80 % of its lifetime.
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Logger } from "pino";
import { NODES_GROUP, NODE_USER_PREFIX } from "../../api/certificates/csr.ts";
import { SIGNER_KUBELET_SERVING } from "../../apis/certificates/v1/types.ts";
import { writeAtomic } from "../../apiserver/certs/pki.ts";
import type { Client } from "../../client/client.ts";
import type { Clock } from "../../utils/clock.ts";
import { requestCertificate } from "./csr.ts";
import { certificateInfo } from "./kubeconfig.ts";

export const SERVING_USAGES = ["digital signature", "server auth"];

export interface ServingCertificateOptions {
  nodeName: string;
  hostname: string;
  ipAddresses: string[];
  certFile: string;
  keyFile: string;
  clock: Clock;
  logger?: Logger;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Ensures the files hold a good serving certificate for exactly these names; returns when to renew it. */
export async function ensureServingCertificate(client: Client, o: ServingCertificateOptions): Promise<number> {
  const existing = await readFile(o.certFile, "utf8").catch(() => undefined);
  const info = existing ? certificateInfo(existing) : undefined;
  if (info && info.commonName === `${NODE_USER_PREFIX}${o.nodeName}` && o.clock.nowMs() < info.renewAtMs && sameNames(existing!, o)) return info.renewAtMs;
  const issued = await requestCertificate(
    client,
    {
      commonName: `${NODE_USER_PREFIX}${o.nodeName}`,
      organizations: [NODES_GROUP],
      dnsNames: [o.hostname],
      ipAddresses: o.ipAddresses,
      signerName: SIGNER_KUBELET_SERVING,
      usages: SERVING_USAGES,
    },
    { clock: o.clock, logger: o.logger, timeoutMs: o.timeoutMs, signal: o.signal },
  );
  // Key first: a reader that sees the new certificate finds its key.
  await writeAtomic(o.keyFile, issued.keyPem, 0o600);
  await writeAtomic(o.certFile, issued.certPem, 0o644);
  o.logger?.info({ csr: issued.csrName, file: o.certFile }, "serving certificate written");
  return certificateInfo(issued.certPem)!.renewAtMs;
}

function sameNames(pem: string, o: ServingCertificateOptions): boolean {
  const san = new X509Certificate(pem).subjectAltName ?? "";
  const have = new Set(san.split(", ").filter(Boolean));
  const want = new Set([`DNS:${o.hostname}`, ...o.ipAddresses.map((ip) => `IP Address:${ip}`)]);
  return have.size === want.size && [...want].every((w) => have.has(w));
}
