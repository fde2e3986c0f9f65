import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client } from "../../../client/client.ts";
import { MAX_ERROR_CHARS, type Probe, checkTunnel } from "./tunnelcheck.ts";

const pod = (name: string, labels: Record<string, string>, phase: string) => ({ metadata: { namespace: "kube-system", name, labels }, status: { phase } });
const shootWith = (items: unknown[], seen: string[] = []): Client => ({ list: async (_t: unknown, o: { labelSelector?: string }) => (seen.push(o.labelSelector ?? ""), { items }) }) as unknown as Client;
const ok: Probe = async () => undefined;

test("the check lists type=tunnel Pods and probes the running app=vpn-shoot one on 8080", async () => {
  const seen: string[] = [];
  const probed: string[] = [];
  const probe: Probe = async (_s, p) => void probed.push(`${p.namespace}/${p.name}:${p.port}`);
  const c = await checkTunnel({ shoot: shootWith([pod("other", { type: "tunnel", app: "x" }, "Running"), pod("vpn-shoot-1", { type: "tunnel", app: "vpn-shoot" }, "Running")], seen), probe });
  assert.deepEqual([c.status, c.reason], ["True", "SystemComponentsRunning"]);
  assert.deepEqual(seen, ["type=tunnel"]);
  assert.deepEqual(probed, ["kube-system/vpn-shoot-1:8080"]);
  assert.equal((await checkTunnel({ shoot: shootWith([]), probe: ok })).reason, "NoTunnelDeployed");
  assert.equal((await checkTunnel({ shoot: shootWith([pod("vpn-shoot", { type: "tunnel", app: "vpn-shoot" }, "Pending")]), probe: ok })).message, "Tunnel connection has not been established (no running vpn-shoot pod found yet in the shoot cluster)");
});

test("an error from the shoot goes into the condition bounded (the Pod's answer may be anything)", async () => {
  const probe: Probe = async () => {
    throw new Error("x".repeat(50_000));
  };
  const c = await checkTunnel({ shoot: shootWith([pod("vpn-shoot", { type: "tunnel", app: "vpn-shoot" }, "Running")]), probe });
  assert.equal(c.reason, "TunnelConnectionBroken");
  assert.ok(c.message.length < MAX_ERROR_CHARS + 200, `${c.message.length} characters`);
  assert.match(c.message, /^Tunnel connection has not been established \(could not forward to vpn-shoot pod \(timeout after 5 seconds\): x+\.\.\.\)$/);
});
