import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadEgressSelector } from "../apiserver/egressselector/egressselector.ts";
import { Layout } from "./layout.ts";
import { egressSelectorConfigOf, prepareVpn } from "./vpn.ts";

test("the shoot API server's egress selector file loads, also from a state directory whose path holds quotes and braces", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vpn "state" {x}: '));
  try {
    const layout = new Layout(dir);
    const creds = await prepareVpn(layout, true);
    assert.deepEqual(Object.keys(creds.clients).sort(), ["vpn-shoot-client-0", "vpn-shoot-client-1"]);
    const selector = await loadEgressSelector(egressSelectorConfigOf(layout));
    assert.equal(typeof selector.cluster, "function", "cluster traffic goes through the egress proxy");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
