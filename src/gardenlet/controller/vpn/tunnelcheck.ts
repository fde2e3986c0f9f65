// The gardenlet's tunnel check (docs/reversed-vpn.md#tunnel-check), Gardener's CheckTunnelConnection: with a
// client of the shoot, a `type=tunnel` Pod must exist and an `app=vpn-shoot` Pod must run; then the
// vpn-seed-server's `/readyz` on 15000 (200 while a tunnel is up) is asked with a 5 s timeout. The result
// is the Shoot's condition `SystemComponentsHealthy`, with Gardener's reasons and messages.
import { request } from "node:http";
import type { Condition } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../../../client/client.ts";
import * as n from "./names.ts";
import { Pods } from "./resources.ts";

export const CONDITION_SYSTEM_COMPONENTS_HEALTHY = "SystemComponentsHealthy";
export const PROBE_TIMEOUT_MS = 5000;
const MAX_BODY = 4096;

export type DesiredCondition = Pick<Condition, "type" | "status" | "reason" | "message">;

export const healthy = (): DesiredCondition => ({ type: CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy." });
export const noTunnel = (): DesiredCondition => ({ type: CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "False", reason: "NoTunnelDeployed", message: "no tunnels are currently deployed to perform health-check on" });
export const broken = (err: string): DesiredCondition => ({
  type: CONDITION_SYSTEM_COMPONENTS_HEALTHY,
  status: "False",
  reason: "TunnelConnectionBroken",
  message: `Tunnel connection has not been established (${err})`,
});

/** Asks `http://<ip>:<port>/readyz`; resolves on 200, rejects with the status and body otherwise. */
export type Probe = (target: { ip: string; port: number }, timeoutMs: number, signal?: AbortSignal) => Promise<void>;

export const httpProbe: Probe = (target, timeoutMs, signal) =>
  new Promise<void>((resolve, reject) => {
    const req = request({ host: target.ip, port: target.port, path: "/readyz", method: "GET", timeout: timeoutMs, signal }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < MAX_BODY) body += chunk.slice(0, MAX_BODY - body.length);
      });
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`vpn-seed-server /readyz answered ${res.statusCode}: ${body.trim()}`))));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${target.ip}:${target.port} within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });

export interface CheckDeps {
  /** A client of the shoot; without one the Pod steps are skipped. */
  shoot?: Client;
  /** The vpn-seed-server's health address, or undefined when it has no Endpoints. */
  target: { ip: string; port: number } | undefined;
  probe: Probe;
  signal?: AbortSignal;
}

export async function checkTunnel(d: CheckDeps): Promise<DesiredCondition> {
  if (d.shoot) {
    let pods;
    try {
      pods = await d.shoot.list(Pods, { namespace: n.SHOOT_NAMESPACE, labelSelector: "type=tunnel", signal: d.signal });
    } catch (err) {
      return broken(`could not list the tunnel pods: ${(err as Error).message}`);
    }
    if (pods.items.length === 0) return noTunnel();
    if (!pods.items.some((p) => p.metadata.labels?.app === "vpn-shoot" && p.status?.phase === "Running")) return broken("no running vpn-shoot pod found yet in the shoot cluster");
  }
  if (!d.target) return broken("the vpn-seed-server has no endpoints yet");
  try {
    await d.probe(d.target, PROBE_TIMEOUT_MS, d.signal);
    return healthy();
  } catch (err) {
    return broken(`could not forward to vpn-shoot pod (timeout after ${PROBE_TIMEOUT_MS / 1000} seconds): ${(err as Error).message}`);
  }
}
