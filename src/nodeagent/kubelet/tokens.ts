// Service-account tokens for projected volumes (pkg/kubelet/token): a TokenRequest bound to the pod per
// (pod, service account, audience, lifetime), cached and requested anew once 80 % of its lifetime has
// passed (or 24 h, whichever comes first). Forget drops a pod's tokens.
import type { ServiceAccountTokenProjection, Pod } from "../../apis/core/v1/pod.ts";
import type { TokenRequest } from "../../apis/authentication/v1/types.ts";
import type { Client } from "../../client/client.ts";
import type { Clock } from "../../utils/clock.ts";

export const DEFAULT_TOKEN_SECONDS = 3600;
const MAX_TTL_MS = 24 * 3600 * 1000;
const MAX_TOKENS = 4096;

interface Entry {
  token: string;
  refreshAtMs: number;
  uid: string;
}

/** When a token issued at issuedMs and expiring at expiresMs is requested anew. */
export function refreshAt(issuedMs: number, expiresMs: number): number {
  const ttl = expiresMs - issuedMs;
  return issuedMs + Math.min(ttl * 0.8, MAX_TTL_MS);
}

export class TokenManager {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly client: Client,
    private readonly clock: Clock,
  ) {}

  async token(pod: Pod, serviceAccount: string, p: ServiceAccountTokenProjection): Promise<string> {
    const uid = pod.metadata.uid ?? "";
    const key = JSON.stringify([uid, pod.metadata.namespace, serviceAccount, p.audience ?? "", p.expirationSeconds ?? DEFAULT_TOKEN_SECONDS]);
    const now = this.clock.nowMs();
    const hit = this.cache.get(key);
    if (hit && now < hit.refreshAtMs) return hit.token;
    const body: TokenRequest = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: {},
      spec: {
        ...(p.audience ? { audiences: [p.audience] } : {}),
        expirationSeconds: p.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata.name, uid },
      },
    };
    const ns = encodeURIComponent(pod.metadata.namespace ?? "");
    const res = await this.client.transport.request<TokenRequest>({ method: "POST", path: `/api/v1/namespaces/${ns}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`, body });
    const token = res.status?.token;
    if (!token) throw new Error("the token request returned no token");
    // The lifetime the server granted (it may shorten the one asked for), counted on this kubelet's clock:
    // the server's expirationTimestamp is on its clock, which need not agree with ours.
    const granted = res.spec?.expirationSeconds;
    const ttlSeconds = typeof granted === "number" && granted > 0 ? granted : (p.expirationSeconds ?? DEFAULT_TOKEN_SECONDS);
    if (this.cache.size >= MAX_TOKENS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { token, uid, refreshAtMs: refreshAt(now, now + ttlSeconds * 1000) });
    return token;
  }

  forget(uid: string): void {
    for (const [k, e] of this.cache) if (e.uid === uid) this.cache.delete(k);
  }
}
