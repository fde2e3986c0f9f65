import { test } from "node:test";
import assert from "node:assert/strict";
import type { ClusterCredentials } from "../apis/dashboard/v1alpha1/types.ts";
import type { Client } from "../client/client.ts";
import { FakeClock } from "../utils/clock.ts";
import { KEEP_BEFORE_EXPIRY_MS, MAX_KEEP_MS, cachedClusterClients } from "./client-cache.ts";
import type { ExpiringClusterClient } from "./clients.ts";

const shoot: ClusterCredentials = { shootRef: { namespace: "garden-p", name: "s" } };
const other: ClusterCredentials = { shootRef: { namespace: "garden-p", name: "t" } };
const secret: ClusterCredentials = { secretRef: { namespace: "garden", name: "host" } };

function fakeFactory(clock: FakeClock, lifetimeMs: number | undefined) {
  const made: { id: number; closed: boolean }[] = [];
  let gate: Promise<void> = Promise.resolve();
  const factory = async (): Promise<ExpiringClusterClient> => {
    await gate;
    const rec = { id: made.length, closed: false };
    made.push(rec);
    return { client: { id: rec.id } as unknown as Client, server: `https://${rec.id}`, close: () => void (rec.closed = true), ...(lifetimeMs === undefined ? {} : { expiresAtMs: clock.nowMs() + lifetimeMs }) };
  };
  return { made, factory, hold: (p: Promise<void>) => void (gate = p) };
}
const signal = new AbortController().signal;

test("a shoot's client is asked for once and kept until shortly before its credential expires, then replaced", async () => {
  const clock = new FakeClock();
  const f = fakeFactory(clock, 600_000);
  const cache = cachedClusterClients(f.factory, clock);
  const a = await cache.factory(shoot, signal);
  a.close();
  const b = await cache.factory(shoot, signal);
  b.close();
  assert.equal(f.made.length, 1, "the second reconcile uses the kept client");
  assert.equal(f.made[0]!.closed, false, "closing a lease does not close a kept client");
  assert.notEqual((await cache.factory(other, signal)).server, a.server, "another shoot has its own client");
  clock.step(600_000 - KEEP_BEFORE_EXPIRY_MS);
  const c = await cache.factory(shoot, signal);
  assert.equal(f.made.length, 3, "an expiring credential is asked for again");
  assert.equal(f.made[0]!.closed, true, "the expired client is closed once nobody uses it");
  c.close();
});

test("clients are kept at most MAX_KEEP_MS even when the credential lives longer; unexpiring or Secret credentials are not kept", async () => {
  const clock = new FakeClock();
  const f = fakeFactory(clock, 24 * 3600_000);
  const cache = cachedClusterClients(f.factory, clock);
  (await cache.factory(shoot, signal)).close();
  clock.step(MAX_KEEP_MS);
  (await cache.factory(shoot, signal)).close();
  assert.equal(f.made.length, 2);

  const g = fakeFactory(clock, undefined);
  const plain = cachedClusterClients(g.factory, clock);
  (await plain.factory(shoot, signal)).close();
  assert.equal(g.made[0]!.closed, true, "a credential without expiry is closed after its reconcile");
  const h = fakeFactory(clock, 600_000);
  const secrets = cachedClusterClients(h.factory, clock);
  (await secrets.factory(secret, signal)).close();
  (await secrets.factory(secret, signal)).close();
  assert.equal(h.made.length, 2, "a Secret is read for every reconcile");
  assert.equal(secrets.size(), 0);
});

test("a failed reconcile drops its credential: the next one asks again, the old client closes when its last user is done", async () => {
  const clock = new FakeClock();
  const f = fakeFactory(clock, 600_000);
  const cache = cachedClusterClients(f.factory, clock);
  const a = await cache.factory(shoot, signal);
  const b = await cache.factory(shoot, signal);
  a.invalidate!();
  a.close();
  assert.equal(f.made[0]!.closed, false, "still in use by the other reconcile");
  b.close();
  assert.equal(f.made[0]!.closed, true);
  (await cache.factory(shoot, signal)).close();
  assert.equal(f.made.length, 2);
});

test("concurrent reconciles of one credential share one request; close() closes what nobody uses", async () => {
  const clock = new FakeClock();
  const f = fakeFactory(clock, 600_000);
  let release!: () => void;
  f.hold(new Promise<void>((r) => (release = r)));
  const cache = cachedClusterClients(f.factory, clock);
  const all = Promise.all(Array.from({ length: 5 }, () => cache.factory(shoot, signal)));
  release();
  const leases = await all;
  assert.equal(f.made.length, 1);
  cache.close();
  assert.equal(f.made[0]!.closed, false, "in use");
  for (const l of leases) l.close();
  assert.equal(f.made[0]!.closed, true);
});
