// TLS material of the server: the generated PKI in --cert-dir (CA, serving certificate, admin
// client certificate, service-account key pair), or the given --tls-cert-file/--tls-private-key-file
// for serving; client certificates are verified against the generated CA plus --client-ca-file; the
// kubelet client certificate and the CA verifying kubelets (--kubelet-client-*, --kubelet-certificate-authority),
// and how kubelets are dialled (--egress-selector-config-file).
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { ensurePki, type Pki } from "../certs/pki.ts";
import { type Dialer, loadEgressSelector } from "../egressselector/egressselector.ts";
import type { ApiServerOptions } from "./options.ts";

export interface TlsMaterial {
  pki: Pki;
  /** Serving certificate chain and key (PEM). */
  cert: string;
  key: string;
  /** CAs whose client certificates are accepted. */
  clientCAs: string[];
  /** What kubeconfigs trust for this server: the generated CA, or the given serving chain. */
  serverCaPem: string;
  /** What the server presents to kubelets and how it verifies them. */
  kubelet: { certPem: string; keyPem: string; caPem: string; dial?: Dialer };
}

export function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "";
}

/** The host clients use: the advertise address, else the bind address (loopback for wildcards). */
export function clientHost(o: Pick<ApiServerOptions, "bindAddress" | "advertiseAddress">): string {
  if (o.advertiseAddress) return o.advertiseAddress;
  if (isWildcard(o.bindAddress)) return o.bindAddress === "::" ? "::1" : "127.0.0.1";
  return o.bindAddress;
}

/** host:port with IPv6 addresses bracketed. */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The `kubernetes` Service's DNS names, in every API server's serving certificate. */
export const KUBERNETES_SERVICE_NAMES = ["kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"];

export async function loadTls(o: ApiServerOptions): Promise<TlsMaterial> {
  // As kube-apiserver: pods reach it as the `kubernetes` Service of `default` (docs/kubelet.md).
  const hosts = [o.bindAddress, o.advertiseAddress].filter((h): h is string => !!h && !isWildcard(h)).concat(KUBERNETES_SERVICE_NAMES, o.tlsSans ?? []);
  const pki = await ensurePki(o.certDir, { hosts });
  const clientCAs = [pki.ca.certPem];
  if (o.clientCaFile) clientCAs.push(await readFile(o.clientCaFile, "utf8"));
  const kubelet = {
    certPem: o.kubeletClientCertificate ? await readFile(o.kubeletClientCertificate, "utf8") : pki.kubeletClient.certPem,
    keyPem: o.kubeletClientKey ? await readFile(o.kubeletClientKey, "utf8") : pki.kubeletClient.keyPem,
    caPem: o.kubeletCertificateAuthority ? await readFile(o.kubeletCertificateAuthority, "utf8") : pki.ca.certPem,
    ...(await egressDialer(o.egressSelectorConfigFile)),
  };
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    const cert = await readFile(o.tlsCertFile, "utf8");
    const key = await readFile(o.tlsPrivateKeyFile, "utf8");
    return { pki, cert, key, clientCAs, serverCaPem: cert, kubelet };
  }
  return { pki, cert: pki.serving.certPem, key: pki.serving.keyPem, clientCAs, serverCaPem: pki.ca.certPem, kubelet };
}

async function egressDialer(file: string | undefined): Promise<{ dial?: Dialer }> {
  const dial = file ? (await loadEgressSelector(file)).cluster : undefined;
  return dial ? { dial } : {};
}
