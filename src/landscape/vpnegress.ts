// The shoot API server's egress (docs/reversed-vpn.md#the-local-landscape): the gardenlet's egress selector
// ConfigMap and the Secrets' files it names, written where the gardenlet's `--vpn-egress-secrets-dir` says, as a
// kubelet mounts a ConfigMap and Secrets into kube-apiserver's pod.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as n from "../api/gardencore/vpnsecrets.ts";
import { type Dialer, loadEgressSelector } from "../apiserver/egressselector/egressselector.ts";
import type { Layout } from "./layout.ts";
import type { EgressCredentials } from "./vpnsecrets.ts";

export const vpnDir = (layout: Layout): string => layout.path("vpn");
export const egressSelectorConfigOf = (layout: Layout): string => join(vpnDir(layout), "egress-selector.yaml");
/**
 * Where the shoot API server finds the VPN Secrets (the gardenlet's `--vpn-egress-secrets-dir`, so its egress
 * selector ConfigMap names these files): `<dir>/<secret>/<key>`, as a Secret volume is mounted.
 */
export const egressSecretsDirOf = (layout: Layout): string => join(vpnDir(layout), "kube-apiserver");

const egressFiles = (layout: Layout, e: EgressCredentials): [string, string][] => {
  const f = (secret: string, key: string) => join(egressSecretsDirOf(layout), secret, key);
  return [
    [f(n.SECRET_CA_BUNDLE, n.DATA_BUNDLE), e.bundle],
    [f(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_CERT), e.client.certPem],
    [f(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_KEY), e.client.keyPem],
    [egressSelectorConfigOf(layout), e.selector],
  ];
};

/** True when an earlier `up` left the shoot API server's egress selector file and the files it names. */
export function egressWritten(layout: Layout): boolean {
  const f = (secret: string, key: string) => join(egressSecretsDirOf(layout), secret, key);
  return [egressSelectorConfigOf(layout), f(n.SECRET_CA_BUNDLE, n.DATA_BUNDLE), f(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_CERT), f(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_KEY)].every((p) => existsSync(p));
}

/**
 * Writes the shoot API server's egress selector configuration (the gardenlet's ConfigMap) and the Secrets' files
 * it names; answers whether anything changed. The API server reads them at its start only, so a change takes
 * effect with its restart, which the caller does once the configuration loads as the API server loads it.
 */
export async function writeEgress(layout: Layout, e: EgressCredentials): Promise<boolean> {
  const changed = egressFiles(layout, e).filter(([path, text]) => !existsSync(path) || readFileSync(path, "utf8") !== text);
  for (const [path, text] of changed) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, text, { mode: 0o600 });
  }
  await loadEgressSelector(egressSelectorConfigOf(layout));
  return changed.length > 0;
}

/** The shoot API server's `cluster` dialer, from the files written (what `up`'s readiness dials the kubelets with). */
export async function egressDialer(layout: Layout): Promise<Dialer> {
  const cluster = (await loadEgressSelector(egressSelectorConfigOf(layout))).cluster;
  if (!cluster) throw new Error(`${egressSelectorConfigOf(layout)} has no proxied cluster selection`);
  return cluster;
}

