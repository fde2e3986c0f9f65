import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node } from "../apis/core/v1/types.ts";
import { nodePodCidr, nodeReady } from "./nodes.ts";

test("each node gets the next /24 of its cluster's pod network; ranges without room are refused", () => {
  assert.equal(nodePodCidr("100.96.0.0/11", 0), "100.96.0.0/24");
  assert.equal(nodePodCidr("100.96.0.0/11", 1), "100.96.1.0/24");
  assert.equal(nodePodCidr("100.96.0.0/11", 256), "100.97.0.0/24");
  assert.equal(nodePodCidr("10.1.5.7/16", 2), "10.1.2.0/24", "normalised to the network first");
  assert.throws(() => nodePodCidr("100.96.0.0/11", 8192), /no 8192th \/24/);
  assert.throws(() => nodePodCidr("10.0.0.0/25", 0), /smaller than a \/24/);
  assert.throws(() => nodePodCidr("fd00::/48", 0), /only IPv4/);
});

test("a node is ready only with Ready=True and a Lease renewed within its duration", () => {
  const now = Date.parse("2025-01-01T00:01:00Z");
  const node = (status: "True" | "False" | "Unknown"): Node => ({ metadata: { name: "n" }, status: { conditions: [{ type: "Ready", status }] } });
  const lease = (renewTime: string) => ({ spec: { renewTime, leaseDurationSeconds: 40 } });
  assert.equal(nodeReady(node("True"), lease("2025-01-01T00:00:30Z"), now), true);
  assert.equal(nodeReady(node("True"), lease("2025-01-01T00:00:10Z"), now), false, "lease 50 s old");
  assert.equal(nodeReady(node("Unknown"), lease("2025-01-01T00:00:59Z"), now), false);
  assert.equal(nodeReady(node("True"), undefined, now), false, "no lease");
});
