// The gardenlet's tunnel check (docs/reversed-vpn.md#tunnel-check), Gardener's CheckTunnelConnection: with a
// client of the shoot, a `type=tunnel` Pod must exist and an `app=vpn-shoot` Pod must run; then its health port
// is asked through the shoot API server (`pods/<pod>:8080/proxy/healthz`, 5 s), which crosses the egress proxy,
// the tunnel and the vpn-shoot-client. The result is the Shoot's condition `SystemComponentsHealthy`, with
// Gardener's reasons and messages.
import type { Condition } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../../../client/client.ts";
import { readBody } from "../../../client/transport.ts";
import * as n from "./names.ts";
import { Pods } from "./resources.ts";

export const CONDITION_SYSTEM_COMPONENTS_HEALTHY = "SystemComponentsHealthy";
export const PROBE_TIMEOUT_MS = 5000;
/** How much of a healthy answer is read. */
const MAX_BODY = 4096;

export type DesiredCondition = Pick<Condition, "type" | "status" | "reason" | "message">;

export const healthy = (): DesiredCondition => ({ type: CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy." });
export const noTunnel = (): DesiredCondition => ({ type: CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "False", reason: "NoTunnelDeployed", message: "no tunnels are currently deployed to perform health-check on" });
/** How much of an error goes into the condition: the answer comes from the shoot (its Pod may say anything). */
export const MAX_ERROR_CHARS = 1024;

export const broken = (err: string): DesiredCondition => ({
  type: CONDITION_SYSTEM_COMPONENTS_HEALTHY,
  status: "False",
  reason: "TunnelConnectionBroken",
  message: `Tunnel connection has not been established (${err.length > MAX_ERROR_CHARS ? `${err.slice(0, MAX_ERROR_CHARS)}...` : err})`,
});

export interface ProbeTarget {
  namespace: string;
  name: string;
  port: number;
}

/** Asks the vpn-shoot Pod's health through the shoot; resolves on 200, rejects with the reason otherwise. */
export type Probe = (shoot: Client, pod: ProbeTarget, timeoutMs: number, signal?: AbortSignal) => Promise<void>;

/** `GET /api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy/healthz` through the shoot API server. */
export const podProxyProbe: Probe = async (shoot, pod, timeoutMs, signal) => {
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const path = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}:${pod.port}/proxy/healthz`;
  try {
    const res = await shoot.transport.stream({ path, signal: both });
    await readBody(res, MAX_BODY);
  } catch (err) {
    if (timeout.aborted && !signal?.aborted) throw new Error(`no answer from pod ${pod.namespace}/${pod.name} on port ${pod.port} within ${timeoutMs / 1000} s`);
    throw err;
  }
};

export interface CheckDeps {
  shoot: Client;
  probe: Probe;
  signal?: AbortSignal;
}

export async function checkTunnel(d: CheckDeps): Promise<DesiredCondition> {
  let pods;
  try {
    pods = await d.shoot.list(Pods, { namespace: n.SHOOT_NAMESPACE, labelSelector: "type=tunnel", signal: d.signal, timeoutMs: PROBE_TIMEOUT_MS });
  } catch (err) {
    return broken(`could not list the tunnel pods: ${(err as Error).message}`);
  }
  if (pods.items.length === 0) return noTunnel();
  const pod = pods.items.find((p) => p.metadata.labels?.app === n.VPN_SHOOT_LABELS.app && p.status?.phase === "Running");
  if (!pod) return broken("no running vpn-shoot pod found yet in the shoot cluster");
  try {
    await d.probe(d.shoot, { namespace: n.SHOOT_NAMESPACE, name: pod.metadata.name!, port: n.VPN_SHOOT_HEALTH_PORT }, PROBE_TIMEOUT_MS, d.signal);
    return healthy();
  } catch (err) {
    return broken(`could not forward to vpn-shoot pod (timeout after ${PROBE_TIMEOUT_MS / 1000} seconds): ${(err as Error).message}`);
  }
}
