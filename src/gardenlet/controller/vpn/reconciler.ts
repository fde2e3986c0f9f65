// The gardenlet's `vpn` controller (docs/reversed-vpn.md#gardenlet): for a Shoot of this seed with workers
// it keeps the VPN Secrets in the control-plane namespace (issued, renewed, switched with the HA mode), their
// copies in the shoot, the vpn-seed-server's Services and Endpoints, and, unless hibernated, the tunnel check's
// condition on the Shoot: every minute (the care loop), and every 5 s for up to 15 min after a spec change
// while the tunnel is not up yet.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { isHibernated, technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { caRotation, hasWorkers, isVpnHighAvailability } from "../../../api/gardencore/vpn.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { type ObjectKey, keyOf, keyString } from "../../../client/resource.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { withConditions } from "../seed/status.ts";
import type { ShootClients } from "../sshkeypair/reconciler.ts";
import { unixSecondsLabel } from "../sshkeypair/secrets.ts";
import type { VpnIssuer } from "./certs.ts";
import { DEFAULT_EGRESS_SECRETS_DIR, ensureEgressConfig } from "./egressconfig.ts";
import { ensureEndpoints } from "./endpoints.ts";
import { ensureVpnSecrets } from "./secrets.ts";
import { syncShootSecrets } from "./shootsecrets.ts";
import { type DesiredCondition, type Probe, checkTunnel, podProxyProbe } from "./tunnelcheck.ts";

export const CARE_INTERVAL_MS = 60_000;
export const RECONCILE_POLL_MS = 5_000;
export const RECONCILE_WINDOW_MS = 15 * 60_000;

/** The VPN namespace's seed-network addresses of a control plane (the landscape owns the seed network). */
export interface VpnAddresses {
  /** `count` addresses (2 in HA), or undefined while there are none yet. */
  addressesFor(namespace: string, count: number): Promise<readonly string[] | undefined> | readonly string[] | undefined;
}

export interface VpnReconcilerDeps {
  gardenClient: Client;
  seedClient: Client;
  issuer: VpnIssuer;
  clock: Clock;
  shootClients?: ShootClients;
  addresses?: VpnAddresses;
  probe?: Probe;
  /** The care loop's period of the tunnel check while healthy (Gardener's shoot care sync period); default CARE_INTERVAL_MS. */
  careIntervalMs?: number;
  /** Where the shoot API server finds the VPN Secrets (the egress selector configuration's files). */
  egressSecretsDir?: string;
  /** How the pass reads the Shoot; default a live read. */
  readShoot?: (key: ObjectKey, signal: AbortSignal) => Promise<Shoot | undefined>;
}

/** The next tunnel check: every 5 s while not healthy within 15 min of a spec change, else the care period (1 min). */
export function checkIntervalMs(healthy: boolean, specChangedMs: number, nowMs: number, careMs = CARE_INTERVAL_MS): number {
  return !healthy && nowMs - specChangedMs < RECONCILE_WINDOW_MS ? Math.min(RECONCILE_POLL_MS, careMs) : careMs;
}

export class VpnReconciler implements Reconciler {
  /** Per shoot: the generation seen and since when (the 15 min window of the reconcile-time check). */
  private readonly seen = new Map<string, { generation: number | undefined; sinceMs: number }>();

  constructor(private readonly d: VpnReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const read = this.d.readShoot ?? ((key, signal) => unlessNotFound(this.d.gardenClient.get(Shoots, key, { signal })));
    const shoot = await read(req, rc.signal);
    if (!shoot || shoot.metadata.deletionTimestamp || !hasWorkers(shoot)) {
      this.seen.delete(keyString(req));
      return;
    }
    const namespace = technicalIDOf(shoot);
    if (!namespace) throw new Error(`shoot ${req.namespace}/${req.name} has no status.technicalID yet`);
    const ha = isVpnHighAvailability(shoot);
    const nowMs = this.d.clock.nowMs();
    const addresses = await this.d.addresses?.addressesFor(namespace, ha ? 2 : 1);
    const r = caRotation(shoot);
    const rotation = r ? { initiation: unixSecondsLabel(r.initiation), prepared: r.prepared } : undefined;
    const set = await ensureVpnSecrets({ seed: this.d.seedClient, issuer: this.d.issuer, nowMs, signal: rc.signal }, { namespace, highAvailability: ha, addresses: addresses ?? [], ...(rotation ? { rotation } : {}) });
    if (set.written.length > 0) rc.log.info({ secrets: set.written }, "VPN secrets written");
    const shootClient = await this.d.shootClients?.clientFor(req);
    if (shootClient) {
      const written = await syncShootSecrets(shootClient, set, ha, rc.signal);
      if (written.length > 0) rc.log.info({ secrets: written }, "VPN secrets written to the shoot");
    }
    const hibernated = isHibernated(shoot);
    const changed = await ensureEndpoints(this.d.seedClient, namespace, ha, hibernated ? undefined : addresses, rc.signal);
    if (changed.length > 0) rc.log.info({ objects: changed }, "vpn-seed-server endpoints written");
    if (await ensureEgressConfig(this.d.seedClient, namespace, addresses?.[0], this.d.egressSecretsDir ?? DEFAULT_EGRESS_SECRETS_DIR, rc.signal)) rc.log.info("egress selector configuration written");
    const careMs = this.d.careIntervalMs ?? CARE_INTERVAL_MS;
    // The check goes through the shoot: without a client of it there is nothing to check.
    if (hibernated || !shootClient) return { requeueAfterMs: careMs };

    const condition = await checkTunnel({ shoot: shootClient, probe: this.d.probe ?? podProxyProbe, signal: rc.signal });
    await this.writeCondition(shoot, condition, nowMs, rc.signal);
    return { requeueAfterMs: this.nextCheckMs(shoot, condition, nowMs) };
  }

  private nextCheckMs(shoot: Shoot, condition: DesiredCondition, nowMs: number): number {
    const key = keyString(keyOf(shoot));
    let seen = this.seen.get(key);
    if (!seen || seen.generation !== shoot.metadata.generation) this.seen.set(key, (seen = { generation: shoot.metadata.generation, sinceMs: nowMs }));
    return checkIntervalMs(condition.status === "True", seen.sinceMs, nowMs, this.d.careIntervalMs);
  }

  /** Writes the condition when its status, reason or message changed; conditional on the resourceVersion read. */
  private async writeCondition(shoot: Shoot, desired: DesiredCondition, nowMs: number, signal: AbortSignal): Promise<void> {
    const current = shoot.status?.conditions ?? [];
    const old = current.find((c) => c.type === desired.type);
    if (old && old.status === desired.status && old.reason === desired.reason && old.message === desired.message) return;
    const body = { metadata: { resourceVersion: shoot.metadata.resourceVersion }, status: { conditions: withConditions(current, [desired], nowMs) } };
    await this.d.gardenClient.patchStatus(Shoots, keyOf(shoot), { type: "merge", body }, { signal });
  }
}
