// Cluster clients kept between reconciles (docs/terminals.md#credentials): a shoot's admin kubeconfig or
// a ServiceAccount's token is asked for once and its client (with its open connections) used until shortly
// before the credential expires, instead of a new credential, client and TLS handshakes for every
// reconcile of every Terminal. An entry is dropped at once when a reconcile that used it fails (so the
// retry asks again and sees a credential that is gone), and closed only when no reconcile uses it.
import type { ClusterCredentials } from "../apis/dashboard/v1alpha1/types.ts";
import type { Clock } from "../utils/clock.ts";
import type { ClusterClient, ClusterClientFactory, ExpiringClusterClient, ExpiringClusterClientFactory } from "./clients.ts";

/** Credentials are given up this long before they expire. */
export const KEEP_BEFORE_EXPIRY_MS = 120_000;
/** And kept at most this long. */
export const MAX_KEEP_MS = 10 * 60_000;
const MAX_ENTRIES = 64;

interface Entry {
  client: ExpiringClusterClient;
  untilMs: number;
  users: number;
  dropped: boolean;
}

export interface CachedClusterClients {
  factory: ClusterClientFactory;
  /** Entries kept now (for tests and metrics). */
  size(): number;
  /** Closes every client no reconcile uses; the others close when their reconcile ends. */
  close(): void;
}

/** The key of a credential that may be kept: ServiceAccounts and shoots (a Secret is read every time). */
export function credentialKey(cred: ClusterCredentials): string | undefined {
  if (cred.serviceAccountRef) return `serviceaccount/${cred.serviceAccountRef.namespace ?? ""}/${cred.serviceAccountRef.name ?? ""}`;
  if (cred.shootRef) return `shoot/${cred.shootRef.namespace}/${cred.shootRef.name}`;
  return undefined;
}

export function cachedClusterClients(fresh: ExpiringClusterClientFactory, clock: Clock): CachedClusterClients {
  const entries = new Map<string, Entry>();
  const pending = new Map<string, Promise<Entry>>();

  const drop = (key: string, e: Entry): void => {
    if (entries.get(key) === e) entries.delete(key);
    e.dropped = true;
    if (e.users === 0) e.client.close();
  };

  const lease = (key: string, e: Entry): ClusterClient => {
    e.users++;
    let released = false;
    return {
      client: e.client.client,
      server: e.client.server,
      close() {
        if (released) return;
        released = true;
        e.users--;
        if (e.dropped && e.users === 0) e.client.close();
      },
      invalidate() {
        drop(key, e);
      },
    };
  };

  const factory: ClusterClientFactory = async (cred, signal) => {
    const key = credentialKey(cred);
    if (key === undefined) return fresh(cred, signal);
    const hit = entries.get(key);
    if (hit && hit.untilMs > clock.nowMs()) return lease(key, hit);
    if (hit) drop(key, hit);
    // Reconciles of several Terminals with one credential share one request for it.
    let p = pending.get(key);
    if (!p) {
      p = fresh(cred, signal).then((client) => {
        const e: Entry = { client, untilMs: Math.min((client.expiresAtMs ?? 0) - KEEP_BEFORE_EXPIRY_MS, clock.nowMs() + MAX_KEEP_MS), users: 0, dropped: false };
        if (e.untilMs > clock.nowMs()) {
          entries.set(key, e);
          while (entries.size > MAX_ENTRIES) {
            const [oldest, old] = entries.entries().next().value as [string, Entry];
            drop(oldest, old);
          }
        } else e.dropped = true;
        return e;
      }).finally(() => pending.delete(key));
      pending.set(key, p);
    }
    return lease(key, await p);
  };

  return {
    factory,
    size: () => entries.size,
    close() {
      for (const [k, e] of [...entries]) drop(k, e);
    },
  };
}
