import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client } from "../../../client/client.ts";
import { Manager } from "../../../controllerruntime/manager.ts";
import { addSSHKeypairController } from "./add.ts";

const gauge = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

test("the gardenlet's /metrics shows the key pool filling: available, size and filled once full", { timeout: 120_000 }, async () => {
  // No API server is contacted: nothing is started, only the controller's key pool runs.
  const client = {} as Client;
  const mgr = new Manager({ client, server: false, defaultMetrics: false });
  const { reconciler } = addSSHKeypairController(mgr, { seedClient: client, shootClients: { clientFor: () => undefined }, keyPoolSize: 1 });
  try {
    const before = await mgr.registry.metrics();
    assert.equal(gauge(before, "gardenlet_ssh_keypair_pool_size"), 1);
    assert.equal(gauge(before, "gardenlet_ssh_keypair_pool_filled"), 0, "not full before the first pair is generated");
    assert.ok(reconciler.keyPool, "the default generator is the pool");
    await reconciler.keyPool.whenFilled();
    const after = await mgr.registry.metrics();
    assert.equal(gauge(after, "gardenlet_ssh_keypair_pool_available"), 1);
    assert.equal(gauge(after, "gardenlet_ssh_keypair_pool_filled"), 1);
    await reconciler.keyPool.take();
    const taken = await mgr.registry.metrics();
    assert.equal(gauge(taken, "gardenlet_ssh_keypair_pool_available"), 0, "a pair handed out");
    assert.equal(gauge(taken, "gardenlet_ssh_keypair_pool_filled"), 1, "filled stays once reached");
  } finally {
    await reconciler.stop();
  }
});
