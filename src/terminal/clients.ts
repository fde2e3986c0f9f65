// Clients of a Terminal's host and target clusters from its ClusterCredentials
// (docs/terminals.md#credentials): a `serviceAccountRef` is a ServiceAccount in the garden, whose
// token (a TokenRequest by the controller) reaches the garden; a `shootRef` is the shoot's
// `shoots/adminkubeconfig` (600 s), which the garden answers once it serves that subresource; a
// `secretRef` is a kubeconfig Secret in the garden (a seed host).
// Tests and other landscapes may replace the whole resolution (`ClusterClientFactory`).
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterCredentials } from "../apis/dashboard/v1alpha1/types.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { Client } from "../client/client.ts";
import { resourcePath } from "../client/resource.ts";
import { Shoots } from "../client/garden.ts";
import { Secrets } from "../client/builtins.ts";
import { inlineKubeConfig } from "../client/inline-kubeconfig.ts";
import { ServiceAccounts } from "./resources.ts";

export interface ClusterClient {
  client: Client;
  /** The cluster's API server URL as the controller reaches it (the kubeconfig's server when nothing better is known). */
  server: string;
  close(): void;
  /** The credential failed its user: the next reconcile asks for a new one (kept clients, client-cache.ts). */
  invalidate?(): void;
}

export type ClusterClientFactory = (cred: ClusterCredentials, signal: AbortSignal) => Promise<ClusterClient>;

/** A fresh client and until when its credential may be used (undefined: not to be kept). */
export interface ExpiringClusterClient extends ClusterClient {
  expiresAtMs?: number;
}

export type ExpiringClusterClientFactory = (cred: ClusterCredentials, signal: AbortSignal) => Promise<ExpiringClusterClient>;

/** A TokenRequest for the ServiceAccount; answers the token. */
export async function requestToken(client: Client, namespace: string, name: string, expirationSeconds: number | undefined, signal?: AbortSignal): Promise<string> {
  return (await requestTokenStatus(client, namespace, name, expirationSeconds, signal)).token;
}

/** A TokenRequest for the ServiceAccount; answers the token and when it expires (ms, when the server says). */
export async function requestTokenStatus(client: Client, namespace: string, name: string, expirationSeconds: number | undefined, signal?: AbortSignal): Promise<{ token: string; expiresAtMs?: number }> {
  const out = await client.transport.request<KubeObject & { status?: { token?: string; expirationTimestamp?: string } }>({
    method: "POST",
    path: resourcePath(ServiceAccounts, namespace, name, "token"),
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { ...(expirationSeconds ? { expirationSeconds } : {}) } },
    signal,
  });
  const token = out.status?.token;
  if (!token) throw new Error(`the TokenRequest for service account ${namespace}/${name} returned no token`);
  return { token, ...expiry(out.status?.expirationTimestamp) };
}

function expiry(timestamp: string | undefined): { expiresAtMs?: number } {
  const ms = Date.parse(timestamp ?? "");
  return Number.isFinite(ms) ? { expiresAtMs: ms } : {};
}

function tokenKubeConfig(base: KubeConfig, token: string): KubeConfig {
  const cluster = base.getCurrentCluster();
  if (!cluster) throw new Error("the garden kubeconfig has no current cluster");
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: "garden" }],
    users: [{ name: "sa", token }],
    contexts: [{ name: "garden", cluster: "garden", user: "sa" }],
    currentContext: "garden",
  });
  return kc;
}

/**
 * The default resolution against the garden the controller runs on; each client says until when its
 * credential holds, so cachedClusterClients (client-cache.ts) may keep it.
 */
export function gardenClusterClients(garden: Client, gardenKubeConfig: KubeConfig, opts: { fieldManager: string; tokenExpirationSeconds?: number }): ExpiringClusterClientFactory {
  return async (cred, signal) => {
    let kc: KubeConfig;
    let expires: { expiresAtMs?: number } = {};
    if (cred.serviceAccountRef) {
      const { namespace = "", name = "" } = cred.serviceAccountRef;
      const { token, ...rest } = await requestTokenStatus(garden, namespace, name, opts.tokenExpirationSeconds, signal);
      kc = tokenKubeConfig(gardenKubeConfig, token);
      expires = rest;
    } else if (cred.shootRef) {
      const { namespace, name } = cred.shootRef;
      const out = await garden.transport.request<KubeObject & { status?: { kubeconfig?: string; expirationTimestamp?: string } }>({
        method: "POST",
        path: resourcePath(Shoots, namespace, name, "adminkubeconfig"),
        body: { apiVersion: "authentication.gardener.cloud/v1alpha1", kind: "AdminKubeconfigRequest", spec: { expirationSeconds: 600 } },
        signal,
      });
      kc = new KubeConfig();
      kc.loadFromString(Buffer.from(out.status?.kubeconfig ?? "", "base64").toString("utf8"));
      expires = expiry(out.status?.expirationTimestamp);
    } else if (cred.secretRef) {
      // A seed that is not a ManagedSeed (docs/terminals.md#seed-hosts): its kubeconfig Secret in the
      // garden, read with the controller's own client; NotFound deletes the Terminal like a gone shoot.
      const { namespace = "", name = "" } = cred.secretRef;
      const secret = await garden.get(Secrets, { namespace, name });
      const data = secret.data?.kubeconfig;
      if (!data) throw new Error(`secret ${namespace}/${name} has no key kubeconfig`);
      kc = inlineKubeConfig(Buffer.from(data, "base64").toString("utf8"), `secret ${namespace}/${name}`);
    } else {
      throw new Error("no cluster credentials provided");
    }
    const client = new Client(kc, { fieldManager: opts.fieldManager, userAgent: opts.fieldManager });
    return { client, server: kc.getCurrentCluster()?.server ?? "", close: () => client.close(), ...expires };
  };
}
