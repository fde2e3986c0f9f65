// A worker's credentials (docs/node-bootstrap.md#the-local-landscape): no worker holds the shoot's admin
// kubeconfig. `up` makes one short-lived bootstrap token per worker in the shoot's kube-system; the
// worker's user-data holds a kubeconfig with that token, with which its node agent obtains its own
// `system:node:<name>` certificate.
import { parse } from "yaml";
import { bootstrapTokenSecret, generateBootstrapToken } from "../api/bootstraptoken/token.ts";
import { kubeconfigYaml } from "../apiserver/certs/kubeconfig.ts";
import { Secrets } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";

/** How long a worker's bootstrap token is valid: its node agent needs it once, at its first start. */
export const BOOTSTRAP_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The server and CA of a kubeconfig's first cluster. */
export function clusterOf(kubeconfig: string): { server: string; caPem: string } {
  const doc = parse(kubeconfig) as { clusters?: { cluster?: { server?: string; "certificate-authority-data"?: string } }[] } | null;
  const cluster = doc?.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster["certificate-authority-data"]) throw new Error("kubeconfig has no cluster with a server and certificate-authority-data");
  return { server: cluster.server, caPem: Buffer.from(cluster["certificate-authority-data"], "base64").toString("utf8") };
}

export interface WorkerTokenOptions {
  /** The worker's Node name (named in the token's description). */
  nodeName: string;
  /** The shoot API server as the worker reaches it, and its CA. */
  cluster: { server: string; caPem: string };
  nowMs: number;
  ttlMs?: number;
}

/** Creates the worker's bootstrap token Secret and returns the bootstrap kubeconfig using it. */
export async function workerBootstrapKubeconfig(shoot: Client, o: WorkerTokenOptions): Promise<string> {
  const t = generateBootstrapToken();
  const expiration = new Date(o.nowMs + (o.ttlMs ?? BOOTSTRAP_TOKEN_TTL_MS));
  await shoot.create(Secrets, bootstrapTokenSecret({ id: t.id, secret: t.secret, expiration, description: `gardener-local: bootstrap token of worker ${o.nodeName}` }));
  return kubeconfigYaml({ server: o.cluster.server, caPem: o.cluster.caPem, clusterName: "shoot", userName: `bootstrap-${t.id}`, user: { token: t.token } });
}
