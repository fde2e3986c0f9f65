// A Terminal's host cluster as the dashboard reaches it (docs/dashboard.md#seed-hosts), resolved from
// the Terminal's stored `spec.host.credentials` with the user's own token: a `shootRef` through the
// user's `shoots/<name>/adminkubeconfig` (cached per token and shoot until a minute before it
// expires), a `secretRef` (a seed that is not a ManagedSeed) through the kubeconfig Secret, read as
// the user, so only who may read the Secret reaches the seed.
import { createHash } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterCredentials } from "../../apis/dashboard/v1alpha1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import { Secrets } from "../../client/builtins.ts";
import { Client } from "../../client/client.ts";
import { Shoots } from "../../client/garden.ts";
import { UnsafeKubeconfigError, inlineKubeConfig } from "../../client/inline-kubeconfig.ts";
import { resourcePath } from "../../client/resource.ts";
import { type Clock, realClock } from "../../utils/clock.ts";

/** A client of a terminal's host cluster: the API server URL and CA, and the client to use. */
export interface HostCluster {
  client: Client;
  url: string;
  caPem?: string;
  close(): void;
}

/** Resolves a Terminal's host credentials as the user. */
export type HostResolver = (user: { name: string; token: string }, credentials: ClusterCredentials) => Promise<HostCluster>;

export function clientFor(api: { url: string; caPem?: string }, auth: { token: string } | { certPem: string; keyPem: string }): Client {
  const kc = new KubeConfig();
  const user = "token" in auth ? { name: "u", token: auth.token } : { name: "u", certData: Buffer.from(auth.certPem).toString("base64"), keyData: Buffer.from(auth.keyPem).toString("base64") };
  kc.loadFromOptions({
    clusters: [{ name: "c", server: api.url, ...(api.caPem ? { caData: Buffer.from(api.caPem).toString("base64") } : {}), skipTLSVerify: false }],
    users: [user],
    contexts: [{ name: "c", cluster: "c", user: "u" }],
    currentContext: "c",
  });
  return new Client(kc, { fieldManager: "dashboard", userAgent: "dashboard" });
}

function hostOf(kc: KubeConfig): HostCluster {
  const cluster = kc.getCurrentCluster();
  const client = new Client(kc, { fieldManager: "dashboard", userAgent: "dashboard" });
  return { client, url: cluster?.server ?? "", caPem: cluster?.caData ? Buffer.from(cluster.caData, "base64").toString() : undefined, close: () => client.close() };
}

/** adminkubeconfigs asked for 600 s are kept until 60 s before they expire; at most this many. */
const ADMIN_KUBECONFIG_SECONDS = 600;
const KEEP_BEFORE_EXPIRY_MS = 60_000;
const MAX_CACHED = 256;

/** The default resolution against the garden the dashboard talks to. */
export function userHosts(garden: { url: string; caPem?: string }, clock: Clock = realClock): HostResolver {
  const cache = new Map<string, { kubeconfig: string; untilMs: number }>();

  const adminKubeconfig = async (token: string, ref: { namespace: string; name: string }): Promise<string> => {
    const key = `${createHash("sha256").update(token).digest("hex")}/${ref.namespace}/${ref.name}`;
    const hit = cache.get(key);
    if (hit && hit.untilMs > clock.nowMs()) return hit.kubeconfig;
    cache.delete(key);
    const c = clientFor(garden, { token });
    try {
      const out = await c.transport.request<KubeObject & { status?: { kubeconfig?: string; expirationTimestamp?: string } }>({
        method: "POST",
        path: resourcePath(Shoots, ref.namespace, ref.name, "adminkubeconfig"),
        body: { apiVersion: "authentication.gardener.cloud/v1alpha1", kind: "AdminKubeconfigRequest", spec: { expirationSeconds: ADMIN_KUBECONFIG_SECONDS } },
      });
      const kubeconfig = Buffer.from(out.status?.kubeconfig ?? "", "base64").toString("utf8");
      const expires = Date.parse(out.status?.expirationTimestamp ?? "");
      const untilMs = (Number.isFinite(expires) ? expires : clock.nowMs() + ADMIN_KUBECONFIG_SECONDS * 1000) - KEEP_BEFORE_EXPIRY_MS;
      if (untilMs > clock.nowMs()) {
        for (const [k, v] of cache) if (v.untilMs <= clock.nowMs() || cache.size >= MAX_CACHED) cache.delete(k);
        cache.set(key, { kubeconfig, untilMs });
      }
      return kubeconfig;
    } finally {
      c.close();
    }
  };

  const secretKubeconfig = async (token: string, ref: { namespace: string; name: string }): Promise<KubeConfig> => {
    const c = clientFor(garden, { token });
    try {
      const secret = await c.get(Secrets, ref);
      const data = secret.data?.kubeconfig;
      if (!data) throw new StatusError(422, "Invalid", `secret ${ref.namespace}/${ref.name} has no key kubeconfig`);
      return inlineKubeConfig(Buffer.from(data, "base64").toString("utf8"), `secret ${ref.namespace}/${ref.name}`);
    } catch (err) {
      if (err instanceof UnsafeKubeconfigError) throw new StatusError(422, "Invalid", err.message);
      throw err;
    } finally {
      c.close();
    }
  };

  return async (user, cred) => {
    if (cred.shootRef) {
      const kc = new KubeConfig();
      kc.loadFromString(await adminKubeconfig(user.token, cred.shootRef));
      return hostOf(kc);
    }
    if (cred.secretRef?.namespace && cred.secretRef.name) return hostOf(await secretKubeconfig(user.token, { namespace: cred.secretRef.namespace, name: cred.secretRef.name }));
    throw new StatusError(422, "Invalid", "the terminal's host needs a shootRef or a secretRef");
  };
}
