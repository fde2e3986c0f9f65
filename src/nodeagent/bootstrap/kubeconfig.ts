// Reading the credentials of a kubeconfig file (server, CA, client certificate or token) and
// judging a client certificate: whose it is and when it must be renewed (at 80 % of its lifetime).
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";

export interface KubeconfigCredentials {
  server: string;
  caPem: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
}

/** The current context's cluster and user; undefined when the file does not exist or is unusable. */
export function readCredentials(path: string): KubeconfigCredentials | undefined {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch {
    return undefined;
  }
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster?.server) return undefined;
  const fromData = (data: string | undefined) => (data ? Buffer.from(data, "base64").toString("utf8") : undefined);
  const fromFile = (file: string | undefined) => (file ? readFileSync(file, "utf8") : undefined);
  const caPem = fromData(cluster.caData) ?? fromFile(cluster.caFile) ?? "";
  return {
    server: cluster.server,
    caPem,
    certPem: fromData(user?.certData) ?? fromFile(user?.certFile),
    keyPem: fromData(user?.keyData) ?? fromFile(user?.keyFile),
    token: user?.token,
  };
}

export interface CertificateInfo {
  commonName: string;
  organizations: string[];
  notBeforeMs: number;
  notAfterMs: number;
  /** When it should be replaced: 80 % into its lifetime. */
  renewAtMs: number;
}

export function certificateInfo(pem: string): CertificateInfo | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return undefined;
  }
  const fields = cert.subject.split("\n");
  const values = (k: string) => fields.filter((f) => f.startsWith(`${k}=`)).map((f) => f.slice(k.length + 1));
  const notBeforeMs = Date.parse(cert.validFrom);
  const notAfterMs = Date.parse(cert.validTo);
  return {
    commonName: values("CN")[0] ?? "",
    organizations: values("O"),
    notBeforeMs,
    notAfterMs,
    renewAtMs: notBeforeMs + Math.floor((notAfterMs - notBeforeMs) * 0.8),
  };
}
