import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../client/client.ts";
import { FakeHost } from "../host/index.ts";
import { createProviderLocal } from "./app.ts";

test("/metrics says how many bastion machines the pool holds", async () => {
  const dir = mkdtempSync(join(tmpdir(), "provider-local-app-"));
  const seedClient = new Client({ server: "x", request: () => Promise.reject(new Error("unused")), stream: () => Promise.reject(new Error("unused")), close: () => undefined });
  const host = new FakeHost();
  const pl = createProviderLocal({ seedClient, stateDir: dir, host, bastionPoolSize: 3, server: false, defaultMetrics: false });
  const held = async (): Promise<string | undefined> => /^provider_local_bastion_pool_held_machines (\d+)$/m.exec(await pl.manager.registry.metrics())?.[1];
  try {
    assert.equal(await held(), "0");
    await pl.pool.start();
    await pl.pool.settled();
    assert.equal(await held(), "3");
    await pl.pool.stop();
    assert.equal(await held(), "0");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
