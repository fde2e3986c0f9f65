// The shoot's copies of the VPN credentials (docs/reversed-vpn.md#gardenlet), in its kube-system:
// `vpn-shoot-ca` (the bundle), `vpn-shoot-tlsauth` and the vpn-shoot-client certificate(s); the other
// mode's client certificates are removed.
import { Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import * as n from "./names.ts";
import { type VpnSecretSet, secret, writeSecret } from "./secrets.ts";

export async function syncShootSecrets(shoot: Client, set: VpnSecretSet, highAvailability: boolean, signal?: AbortSignal): Promise<string[]> {
  const labels = { [n.LABEL_MANAGED_BY]: n.MANAGER_IDENTITY };
  const desired = [
    secret(n.SHOOT_NAMESPACE, n.SHOOT_SECRET_CA, { [n.DATA_BUNDLE]: set.bundle }, labels),
    secret(n.SHOOT_NAMESPACE, n.SHOOT_SECRET_TLS_AUTH, { [n.DATA_TLS_AUTH]: set.tlsAuth }, labels),
    ...Object.entries(set.clients).map(([cn, pair]) => secret(n.SHOOT_NAMESPACE, cn, { [n.DATA_TLS_CERT]: pair.certPem, [n.DATA_TLS_KEY]: pair.keyPem }, labels)),
  ];
  const written: string[] = [];
  for (const s of desired) {
    const key = { namespace: n.SHOOT_NAMESPACE, name: s.metadata.name! };
    if (await writeSecret(shoot, await unlessNotFound(shoot.get(Secrets, key, { signal })), s, signal)) written.push(key.name);
  }
  for (const stale of n.shootClientNames(!highAvailability)) {
    if (await unlessNotFound(shoot.delete(Secrets, { namespace: n.SHOOT_NAMESPACE, name: stale }, { signal }))) written.push(`-${stale}`);
  }
  return written;
}
