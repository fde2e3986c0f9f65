// The reversed VPN's credentials as the gardenlet writes them (docs/reversed-vpn.md#the-local-landscape): the
// landscape deploys the VPN's processes from these Secrets, as a seed's and a shoot's kubelets mount them into
// the vpn-seed-server, the shoot API server and the vpn-shoot-client. It never issues or writes them.
import { type Secret, ConfigMaps, Secrets } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { unlessNotFound } from "../client/helpers.ts";
import * as n from "../api/gardencore/vpnsecrets.ts";
import type { ServerCredentials } from "../vpn/openvpn-server.ts";
import type { ClientCredentials } from "../vpn/shootclient.ts";

/** A value of a Secret or ConfigMap larger than this is refused (a certificate chain or a key is a few KiB). */
export const MAX_VALUE_BYTES = 64 * 1024;

/** What was read, or the names of the objects (and keys) still missing. */
export type Read<T> = { value: T } | { missing: string[] };

/** The shoot API server's egress: the selector configuration (YAML) and the files it names. */
export interface EgressCredentials {
  selector: string;
  bundle: string;
  client: { certPem: string; keyPem: string };
}

/** The vpn-shoot-client's credentials by client CN (`vpn-shoot-client`, or `-0` and `-1` in HA). */
export type ShootClientCredentials = Record<string, ClientCredentials>;

type Values = Record<string, string | undefined>;

/** Reads named keys of named objects; each value decoded, non-empty and bounded, else reported as missing. */
async function readAll<K extends string>(get: (name: string) => Promise<Values | undefined>, wanted: Record<K, [string, string]>): Promise<Read<Record<K, string>>> {
  const missing: string[] = [];
  const out = {} as Record<K, string>;
  const objects = new Map<string, Promise<Values | undefined>>();
  for (const [key, [name, field]] of Object.entries(wanted) as [K, [string, string]][]) {
    if (!objects.has(name)) objects.set(name, get(name));
    const v = (await objects.get(name)!)?.[field];
    if (v === undefined || v === "" || v.length > MAX_VALUE_BYTES) missing.push(`${name}/${field}`);
    else out[key] = v;
  }
  return missing.length > 0 ? { missing } : { value: out };
}

const secretValues = (c: Client, namespace: string) => async (name: string): Promise<Values | undefined> => {
  const s: Secret | undefined = await unlessNotFound(c.get(Secrets, { namespace, name }));
  if (!s) return undefined;
  return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, v.length > (MAX_VALUE_BYTES * 4) / 3 + 4 ? undefined : Buffer.from(v, "base64").toString("utf8")]));
};

/** The vpn-seed-server's credentials in the control-plane namespace of the seed. */
export async function readServerCredentials(seed: Client, namespace: string): Promise<Read<ServerCredentials>> {
  const r = await readAll(secretValues(seed, namespace), {
    bundle: [n.SECRET_CA_BUNDLE, n.DATA_BUNDLE],
    cert: [n.SECRET_SERVER, n.DATA_TLS_CERT],
    key: [n.SECRET_SERVER, n.DATA_TLS_KEY],
    tlsAuth: [n.SECRET_TLS_AUTH, n.DATA_TLS_AUTH],
  });
  return "missing" in r ? r : { value: { bundle: r.value.bundle, server: { certPem: r.value.cert, keyPem: r.value.key }, tlsAuth: r.value.tlsAuth } };
}

/** The shoot API server's egress selector ConfigMap and the Secrets its files come from. */
export async function readEgressCredentials(seed: Client, namespace: string): Promise<Read<EgressCredentials>> {
  const secrets = secretValues(seed, namespace);
  const get = async (name: string): Promise<Values | undefined> =>
    name === n.EGRESS_CONFIGMAP ? (await unlessNotFound(seed.get(ConfigMaps, { namespace, name })))?.data : secrets(name);
  const r = await readAll(get, {
    selector: [n.EGRESS_CONFIGMAP, n.EGRESS_CONFIG_KEY],
    bundle: [n.SECRET_CA_BUNDLE, n.DATA_BUNDLE],
    cert: [n.SECRET_EGRESS_CLIENT, n.DATA_TLS_CERT],
    key: [n.SECRET_EGRESS_CLIENT, n.DATA_TLS_KEY],
  });
  return "missing" in r ? r : { value: { selector: r.value.selector, bundle: r.value.bundle, client: { certPem: r.value.cert, keyPem: r.value.key } } };
}

/** The vpn-shoot-client's copies in the shoot's kube-system: the bundle, the tls-auth key and the client certificate(s). */
export async function readShootClientCredentials(shoot: Client, highAvailability: boolean): Promise<Read<ShootClientCredentials>> {
  const names = n.shootClientNames(highAvailability);
  const wanted: Record<string, [string, string]> = { bundle: [n.SHOOT_SECRET_CA, n.DATA_BUNDLE], tlsAuth: [n.SHOOT_SECRET_TLS_AUTH, n.DATA_TLS_AUTH] };
  for (const cn of names) Object.assign(wanted, { [`${cn}.crt`]: [cn, n.DATA_TLS_CERT], [`${cn}.key`]: [cn, n.DATA_TLS_KEY] });
  const r = await readAll(secretValues(shoot, n.SHOOT_NAMESPACE), wanted);
  if ("missing" in r) return r;
  const v = r.value;
  return { value: Object.fromEntries(names.map((cn) => [cn, { bundle: v.bundle!, tlsAuth: v.tlsAuth!, client: { certPem: v[`${cn}.crt`]!, keyPem: v[`${cn}.key`]! } }])) };
}
