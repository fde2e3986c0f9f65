// Readiness of the nodes' kubelet endpoints (docs/exec-attach-logs.md#wiring-it-into-the-node-agent): a
// Node can be Ready before its node agent got its serving certificate and listens on 10250, and until
// then `kubectl exec` and `logs` answer 503. The landscape waits until every worker's endpoint answers the
// way the API server reaches it: at the Node's InternalIP and kubelet port (from the host, or through the
// reversed VPN's egress proxy as the shoot API server does), with the API server's kubelet-client
// certificate, the serving certificate verified against the cluster CA.
import { request } from "node:https";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import type { Dialer } from "../apiserver/egressselector/egressselector.ts";
import type { Node } from "../apis/core/v1/types.ts";
import type { Client } from "../client/client.ts";
import { Nodes } from "../nodeagent/node.ts";

export interface KubeletTls {
  certPem: string;
  keyPem: string;
  caPem: string;
}

/** The API server's kubelet-client identity and the cluster CA, from its certificate directory. */
export function kubeletTlsOf(certDir: string): KubeletTls {
  const read = (f: string): string => readFileSync(join(certDir, f), "utf8");
  return { certPem: read("apiserver-kubelet-client.crt"), keyPem: read("apiserver-kubelet-client.key"), caPem: read("ca.crt") };
}

/** Where the API server dials a Node's kubelet: its InternalIP and daemonEndpoints port (10250 when unset). */
export function kubeletEndpoint(node: Node): { host: string; port: number } | undefined {
  const host = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
  if (!host) return undefined;
  return { host, port: node.status?.daemonEndpoints?.kubeletEndpoint?.Port || 10250 };
}

/**
 * True when the kubelet at `endpoint` completes a verified TLS handshake and answers an HTTP request as a
 * kubelet that admits the API server (any answer but 401, 403 or a 5xx: a path it does not serve is a 404).
 * With `dial`, the connection is opened through it (the egress proxy), TLS to the kubelet inside.
 */
export async function kubeletAnswers(endpoint: { host: string; port: number }, tls: KubeletTls, timeoutMs = 3000, dial?: Dialer): Promise<boolean> {
  const dialing = dial?.(endpoint.host, endpoint.port);
  // A connection that comes after the timeout is closed when it comes, not left open.
  const tunnel = dialing ? await withTimeout(dialing, timeoutMs).catch(() => void dialing.then((s) => s.destroy(), () => undefined)) : undefined;
  if (dial && !tunnel) return false;
  return new Promise((resolve) => {
    // Node uses createConnection only for a request without an agent (agent: false makes one).
    const through = tunnel ? { createConnection: () => tlsConnect({ socket: tunnel, host: endpoint.host, cert: tls.certPem, key: tls.keyPem, ca: tls.caPem }) } : { agent: false as const };
    const req = request({ host: endpoint.host, port: endpoint.port, path: "/healthz", method: "GET", cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, timeout: timeoutMs, ...through }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code !== 401 && code !== 403 && code < 500);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(false));
    req.end();
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The names among `names` whose Node's kubelet endpoint answers (kubeletAnswers, through `dial` when given). */
export async function servingKubelets(client: Client, names: readonly string[], tls: KubeletTls, dial?: Dialer): Promise<string[]> {
  const nodes = (await client.list(Nodes)).items.filter((n) => names.includes(n.metadata.name!));
  const answers = await Promise.all(nodes.map(async (n) => {
    const endpoint = kubeletEndpoint(n);
    return endpoint && (await kubeletAnswers(endpoint, tls, 3000, dial)) ? n.metadata.name! : undefined;
  }));
  return answers.filter((n): n is string => n !== undefined).sort();
}
