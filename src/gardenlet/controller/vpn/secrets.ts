// The VPN's Secrets (docs/reversed-vpn.md#gardenlet): in the seed's control-plane namespace the CA, its
// bundle, the vpn-seed-server and egress-client certificates, the vpn-shoot-client certificate(s) and the
// tls-auth key; each kept while valid and re-issued when missing, unreadable, due for renewal, signed by
// another CA or issued for another configuration (checksum-of-config). The seed holds the truth; the shoot
// gets its copies (shootsecrets.ts).
import { createHash } from "node:crypto";
import type { Secret } from "../../../client/builtins.ts";
import { Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { type PemPair, type VpnIssuer, isTlsAuthKey, mustRenew, signedBy, validityOf } from "./certs.ts";
import * as n from "./names.ts";

export interface VpnSecretSet {
  ca: PemPair;
  /** The current CA, plus the previous one while a CA rotation is prepared. */
  bundle: string;
  server: PemPair;
  egressClient: PemPair;
  /** By CN: `vpn-shoot-client`, or `vpn-shoot-client-0` and `-1`. */
  clients: Record<string, PemPair>;
  tlsAuth: string;
  /** Names of the Secrets written in this pass (created or replaced). */
  written: string[];
}

export interface EnsureDeps {
  seed: Client;
  issuer: VpnIssuer;
  nowMs: number;
  signal?: AbortSignal;
}

export interface VpnConfig {
  namespace: string;
  highAvailability: boolean;
  /** The VPN namespace's seed-network addresses (IP SANs of the server certificate). */
  addresses: readonly string[];
  /**
   * The shoot's CA rotation: `initiation` (unix seconds of its lastInitiationTime) names it; while `prepared`
   * the previous CA stays trusted in the bundle, afterwards it is deleted.
   */
  rotation?: { initiation: string; prepared: boolean };
}

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string | undefined): string | undefined => (s === undefined ? undefined : Buffer.from(s, "base64").toString("utf8"));

export function checksum(config: unknown): string {
  return createHash("sha256").update(JSON.stringify(config)).digest("hex").slice(0, 16);
}

function labels(name: string, certPem: string | undefined, config: string | undefined): Record<string, string> {
  const out: Record<string, string> = { [n.LABEL_NAME]: name, [n.LABEL_MANAGED_BY]: n.MANAGED_BY, [n.LABEL_MANAGER_IDENTITY]: n.MANAGER_IDENTITY };
  if (config !== undefined) out[n.LABEL_CHECKSUM] = config;
  const v = validityOf(certPem);
  if (v) {
    out[n.LABEL_ISSUED_AT] = String(Math.floor(v.notBeforeMs / 1000));
    out[n.LABEL_VALID_UNTIL] = String(Math.floor(v.notAfterMs / 1000));
  }
  return out;
}

/** Creates or replaces a Secret's data and labels; unchanged: no write. Returns whether it wrote. */
export async function writeSecret(client: Client, existing: Secret | undefined, desired: Secret, signal?: AbortSignal): Promise<boolean> {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (!existing) {
    await client.create(Secrets, desired, { signal });
    return true;
  }
  if (same(existing.data, desired.data) && same(existing.metadata.labels, desired.metadata.labels) && (existing.type ?? "Opaque") === desired.type) return false;
  await client.update(Secrets, { ...existing, type: desired.type, metadata: { ...existing.metadata, labels: desired.metadata.labels }, data: desired.data }, { signal });
  return true;
}

export function secret(namespace: string, name: string, data: Record<string, string>, labelSet: Record<string, string>): Secret {
  return { metadata: { namespace, name, labels: labelSet }, type: "Opaque", data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

class Pass {
  readonly written: string[] = [];
  constructor(
    private readonly d: EnsureDeps,
    private readonly ns: string,
  ) {}

  get(name: string): Promise<Secret | undefined> {
    return unlessNotFound(this.d.seed.get(Secrets, { namespace: this.ns, name }, { signal: this.d.signal }));
  }

  async put(existing: Secret | undefined, name: string, data: Record<string, string>, certPem: string | undefined, config?: string, extra: Record<string, string> = {}): Promise<void> {
    if (await writeSecret(this.d.seed, existing, secret(this.ns, name, data, { ...labels(name, certPem, config), ...extra }), this.d.signal)) this.written.push(name);
  }

  async remove(name: string): Promise<void> {
    if (await unlessNotFound(this.d.seed.delete(Secrets, { namespace: this.ns, name }, { signal: this.d.signal }))) this.written.push(`-${name}`);
  }

  /** A certificate Secret (`tls.crt`, `tls.key`), kept while valid for this CA and configuration. */
  async leaf(name: string, ca: PemPair, config: unknown, issue: () => Promise<PemPair>): Promise<PemPair> {
    const existing = await this.get(name);
    const sum = checksum(config);
    const certPem = unb64(existing?.data?.[n.DATA_TLS_CERT]);
    const keyPem = unb64(existing?.data?.[n.DATA_TLS_KEY]);
    const keep = certPem && keyPem && existing?.metadata.labels?.[n.LABEL_CHECKSUM] === sum && signedBy(certPem, ca.certPem) && !mustRenew(certPem, this.d.nowMs);
    const pair = keep ? { certPem, keyPem } : await issue();
    await this.put(existing, name, { [n.DATA_TLS_CERT]: pair.certPem, [n.DATA_TLS_KEY]: pair.keyPem }, pair.certPem, sum);
    return pair;
  }
}

const rotationOf = (s: Secret | undefined): string => s?.metadata.labels?.[n.LABEL_LAST_ROTATION_INITIATION] ?? "";

/** The `last-rotation-initiation-time` label: the current rotation's while prepared, else the one stored. */
function rotationLabel(existing: Secret | undefined, rotation: VpnConfig["rotation"]): Record<string, string> {
  const value = rotation?.prepared ? rotation.initiation : rotationOf(existing);
  return value ? { [n.LABEL_LAST_ROTATION_INITIATION]: value } : {};
}

function readCA(s: Secret | undefined, nowMs: number): PemPair | undefined {
  const certPem = unb64(s?.data?.[n.DATA_CA_CERT]);
  const keyPem = unb64(s?.data?.[n.DATA_CA_KEY]);
  return certPem && keyPem && signedBy(certPem, certPem) && !mustRenew(certPem, nowMs) ? { certPem, keyPem } : undefined;
}

/**
 * The CA (`ca-vpn`) and, while a rotation is prepared, the previous one (`ca-vpn-old`). A rotation the
 * stored CA has not seen (its `last-rotation-initiation-time`) moves it to `ca-vpn-old` first, then writes
 * a new `ca-vpn`; so a pass that stops in between repeats the same move. Once the rotation completes,
 * `ca-vpn-old` is deleted and certificates of the old CA are no longer trusted.
 */
async function ensureCA(p: Pass, d: EnsureDeps, rotation: VpnConfig["rotation"]): Promise<{ ca: PemPair; old?: PemPair }> {
  const caSecret = await p.get(n.SECRET_CA);
  let ca = readCA(caSecret, d.nowMs);
  let old: PemPair | undefined;
  if (rotation?.prepared) {
    const oldSecret = await p.get(n.SECRET_CA_OLD);
    old = readCA(oldSecret, d.nowMs);
    if (ca && rotationOf(caSecret) !== rotation.initiation) {
      await p.put(oldSecret, n.SECRET_CA_OLD, { [n.DATA_CA_CERT]: ca.certPem, [n.DATA_CA_KEY]: ca.keyPem }, ca.certPem, undefined, rotationLabel(caSecret, undefined));
      old = ca;
      ca = undefined;
    }
  } else {
    await p.remove(n.SECRET_CA_OLD);
  }
  ca ??= await d.issuer.ca(new Date(d.nowMs));
  await p.put(caSecret, n.SECRET_CA, { [n.DATA_CA_CERT]: ca.certPem, [n.DATA_CA_KEY]: ca.keyPem }, ca.certPem, undefined, rotationLabel(caSecret, rotation));
  return old ? { ca, old } : { ca };
}

/** Ensures every seed-side VPN Secret of one control plane and answers their contents. */
export async function ensureVpnSecrets(d: EnsureDeps, cfg: VpnConfig): Promise<VpnSecretSet> {
  const p = new Pass(d, cfg.namespace);
  const now = new Date(d.nowMs);

  const { ca, old } = await ensureCA(p, d, cfg.rotation);
  const bundle = old ? ca.certPem + old.certPem : ca.certPem;
  await p.put(await p.get(n.SECRET_CA_BUNDLE), n.SECRET_CA_BUNDLE, { [n.DATA_BUNDLE]: bundle }, undefined);

  // A new tls-auth key with every rotation (both ends take it in one step), else kept while well-formed.
  const tlsSecret = await p.get(n.SECRET_TLS_AUTH);
  const stored = unb64(tlsSecret?.data?.[n.DATA_TLS_AUTH]);
  const tlsRotated = cfg.rotation?.prepared === true && tlsSecret !== undefined && rotationOf(tlsSecret) !== cfg.rotation.initiation;
  const tlsAuth = isTlsAuthKey(stored) && !tlsRotated ? stored! : d.issuer.tlsAuth();
  await p.put(tlsSecret, n.SECRET_TLS_AUTH, { [n.DATA_TLS_AUTH]: tlsAuth }, undefined, undefined, rotationLabel(tlsSecret, cfg.rotation));

  const addresses = [...cfg.addresses];
  const server = await p.leaf(n.SECRET_SERVER, ca, { addresses }, () => d.issuer.server(ca, { namespace: cfg.namespace, addresses }, now));
  const egressClient = await p.leaf(n.SECRET_EGRESS_CLIENT, ca, {}, () => d.issuer.client(ca, n.SECRET_EGRESS_CLIENT, now));
  const clients: Record<string, PemPair> = {};
  for (const cn of n.shootClientNames(cfg.highAvailability)) clients[cn] = await p.leaf(cn, ca, {}, () => d.issuer.client(ca, cn, now));
  // The other mode's client certificates (a switch between plain and HA) go.
  for (const stale of n.shootClientNames(!cfg.highAvailability)) await p.remove(stale);
  return { ca, bundle, server, egressClient, clients, tlsAuth, written: p.written };
}
