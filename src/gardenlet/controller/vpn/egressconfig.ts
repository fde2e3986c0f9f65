// The shoot API server's egress selector configuration (docs/reversed-vpn.md#egress-selector-configmap): the
// ConfigMap `kube-apiserver-egress-selector-config` in the control-plane namespace, key
// `egress-selector-configuration.yaml`. `cluster` goes through the vpn-seed-server's egress proxy
// (HTTPConnect to https://<first address>:9443, mutual TLS with the bundle and the
// `kube-apiserver-http-proxy-client` certificate, as files where the API server finds the Secrets);
// `controlplane` and `etcd` are Direct. Without an address the ConfigMap is removed: a configured egress is
// never bypassed, so a wrong one is worse than none.
import { stringify } from "yaml";
import { type ConfigMap, ConfigMaps } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { EGRESS_CONFIG_KEY, EGRESS_CONFIGMAP } from "../../../api/gardencore/vpnsecrets.ts";
import * as n from "./names.ts";

export { DEFAULT_EGRESS_SECRETS_DIR, EGRESS_CONFIG_KEY, EGRESS_CONFIGMAP } from "../../../api/gardencore/vpnsecrets.ts";

export function egressSelectorConfiguration(address: string, secretsDir: string): string {
  const file = (secret: string, key: string) => `${secretsDir.replace(/\/+$/, "")}/${secret}/${key}`;
  const host = address.includes(":") ? `[${address}]` : address;
  return stringify({
    apiVersion: "apiserver.k8s.io/v1beta1",
    kind: "EgressSelectorConfiguration",
    egressSelections: [
      {
        name: "cluster",
        connection: {
          proxyProtocol: "HTTPConnect",
          transport: {
            tcp: {
              url: `https://${host}:${n.PORT_EGRESS}`,
              tlsConfig: {
                caBundle: file(n.SECRET_CA_BUNDLE, n.DATA_BUNDLE),
                clientCert: file(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_CERT),
                clientKey: file(n.SECRET_EGRESS_CLIENT, n.DATA_TLS_KEY),
              },
            },
          },
        },
      },
      { name: "controlplane", connection: { proxyProtocol: "Direct" } },
      { name: "etcd", connection: { proxyProtocol: "Direct" } },
    ],
  });
}

/** Writes the ConfigMap for `address`, or removes it when there is none; answers whether it changed. */
export async function ensureEgressConfig(seed: Client, namespace: string, address: string | undefined, secretsDir: string, signal?: AbortSignal): Promise<boolean> {
  const key = { namespace, name: EGRESS_CONFIGMAP };
  const existing = await unlessNotFound(seed.get(ConfigMaps, key, { signal }));
  if (!address) return existing ? (await unlessNotFound(seed.delete(ConfigMaps, key, { signal }))) !== undefined : false;
  const data = { [EGRESS_CONFIG_KEY]: egressSelectorConfiguration(address, secretsDir) };
  const labels = { [n.LABEL_MANAGED_BY]: n.MANAGER_IDENTITY };
  if (!existing) {
    await seed.create(ConfigMaps, { metadata: { ...key, labels }, data } as ConfigMap, { signal });
    return true;
  }
  if (JSON.stringify(existing.data ?? {}) === JSON.stringify(data)) return false;
  await seed.update(ConfigMaps, { ...existing, data }, { signal });
  return true;
}
