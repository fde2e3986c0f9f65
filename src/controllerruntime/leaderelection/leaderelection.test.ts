// The election logic under a fake clock, against a tiny in-memory Lease endpoint with real
// optimistic concurrency (409 on a stale resourceVersion). The integration tests run the same
// elector against the real API server.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Lease } from "../../client/builtins.ts";
import { Client } from "../../client/client.ts";
import { type FakeApi, sendJson, startFakeApi, statusBody } from "../../client/testing.ts";
import { FakeClock } from "../../utils/clock.ts";
import { advance, stepUntil } from "../../utils/poll.ts";
import { LeaderElector } from "./leaderelection.ts";

interface LeaseApi {
  api: FakeApi;
  leases: Map<string, Lease>;
  /** While true, every request fails with 503 (an unreachable API server). */
  down: boolean;
}

async function startLeaseApi(): Promise<LeaseApi> {
  const state: LeaseApi = { api: undefined as unknown as FakeApi, leases: new Map(), down: false };
  let rv = 1;
  state.api = await startFakeApi((req, res) => {
    if (state.down) return sendJson(res, 503, statusBody(503, "ServiceUnavailable", "down"));
    const m = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/?]+))?/.exec(req.url ?? "");
    if (!m) return sendJson(res, 404, statusBody(404, "NotFound", "no such path"));
    const body = req.body ? (JSON.parse(req.body) as Lease) : undefined;
    const name = m[2] ?? body?.metadata.name ?? "";
    const key = `${m[1]}/${name}`;
    const cur = state.leases.get(key);
    if (req.method === "GET") return cur ? sendJson(res, 200, cur) : sendJson(res, 404, statusBody(404, "NotFound", `leases "${name}" not found`));
    if (req.method === "POST") {
      if (cur) return sendJson(res, 409, statusBody(409, "AlreadyExists", "exists"));
      const stored = { ...body!, metadata: { ...body!.metadata, resourceVersion: String(++rv) } };
      state.leases.set(key, stored);
      return sendJson(res, 201, stored);
    }
    if (req.method === "PUT") {
      if (!cur || cur.metadata.resourceVersion !== body!.metadata.resourceVersion) return sendJson(res, 409, statusBody(409, "Conflict", "the object has been modified"));
      const stored = { ...body!, metadata: { ...body!.metadata, resourceVersion: String(++rv) } };
      state.leases.set(key, stored);
      return sendJson(res, 200, stored);
    }
    sendJson(res, 405, statusBody(405, "MethodNotAllowed", "no"));
  });
  return state;
}

/**
 * Candidates whose run() has not returned. Each of them, once it has done what a step of the fake
 * clock set off (an HTTP round trip to the lease endpoint), waits on exactly one timer of the clock:
 * so "settled" is "the clock holds a timer for every live candidate".
 */
const live = new Set<object>();
const settledOn = (clock: FakeClock) => (): boolean => clock.pending() >= live.size;

/** Advances fake time in steps, settling between them, until cond holds; returns the fake time taken. */
function advanceUntil(clock: FakeClock, cond: () => boolean, stepMs: number, maxMs: number): Promise<number> {
  return stepUntil(clock, "condition", cond, { stepMs, maxMs, settled: settledOn(clock) });
}

function candidate(api: LeaseApi, clock: FakeClock, identity: string, releaseOnCancel = true) {
  const events: string[] = [];
  const ac = new AbortController();
  const client = new Client(api.api.kubeConfig);
  const elector = new LeaderElector({
    client,
    namespace: "kube-system",
    name: "ctrl",
    identity,
    clock,
    jitterFactor: 0,
    releaseOnCancel,
    onStartedLeading: () => events.push("started"),
    onStoppedLeading: () => events.push("stopped"),
  });
  const me = {};
  live.add(me);
  const run = elector.run(ac.signal).finally(() => live.delete(me));
  return { elector, events, run, stop: () => ac.abort(), client };
}

test("one of two candidates leads; after the leader dies the other takes over once the lease expired", async (t) => {
  const api = await startLeaseApi();
  t.after(() => api.api.close());
  const clock = new FakeClock();
  const a = candidate(api, clock, "a", false);
  await advanceUntil(clock, () => a.elector.isLeader(), 100, 1000);
  const b = candidate(api, clock, "b");
  // a renews every 2 s for a minute; b never gets the lease meanwhile
  await advance(clock, 60_000, { stepMs: 500, settled: settledOn(clock) });
  assert.equal(a.elector.isLeader(), true);
  assert.equal(b.elector.isLeader(), false);
  assert.equal(b.elector.getLeader(), "a");
  const lease = api.leases.get("kube-system/ctrl")!;
  assert.equal(lease.spec?.holderIdentity, "a");
  assert.equal(lease.spec?.leaseDurationSeconds, 15);
  assert.match(lease.spec!.renewTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  // "kill" a: it stops renewing and does not release (releaseOnCancel false)
  a.stop();
  await a.run;
  const killedAt = clock.nowMs();
  const took = await advanceUntil(clock, () => b.elector.isLeader(), 250, 30_000);
  const sinceKill = clock.nowMs() - killedAt;
  assert.ok(sinceKill <= 15_000 + 2_000 + 500, `b took over ${sinceKill} ms after a died (lease 15 s + one retry period)`);
  assert.ok(sinceKill >= 13_000, `b must not take over while a's lease is still valid (${sinceKill} ms, ${took})`);
  assert.equal(api.leases.get("kube-system/ctrl")!.spec?.holderIdentity, "b");
  assert.equal(api.leases.get("kube-system/ctrl")!.spec?.leaseTransitions, 1);
  assert.deepEqual(b.events, ["started"]);
  b.stop();
  await b.run;
  assert.equal(api.leases.get("kube-system/ctrl")!.spec?.holderIdentity, "", "b released on a voluntary stop");
  a.client.close();
  b.client.close();
});

test("a released lease is taken over within one retry period", async (t) => {
  const api = await startLeaseApi();
  t.after(() => api.api.close());
  const clock = new FakeClock();
  const a = candidate(api, clock, "a", true);
  await advanceUntil(clock, () => a.elector.isLeader(), 100, 1000);
  const b = candidate(api, clock, "b");
  await advanceUntil(clock, () => b.elector.getLeader() === "a", 100, 5000);
  a.stop();
  await a.run;
  assert.deepEqual(a.events, ["started", "stopped"]);
  const took = await advanceUntil(clock, () => b.elector.isLeader(), 100, 10_000);
  assert.ok(took <= 2_100, `took ${took} ms`);
  b.stop();
  await b.run;
  a.client.close();
  b.client.close();
});

test("a leader that cannot renew within the renew deadline steps down", async (t) => {
  const api = await startLeaseApi();
  t.after(() => api.api.close());
  const clock = new FakeClock();
  const a = candidate(api, clock, "a");
  await advanceUntil(clock, () => a.elector.isLeader(), 100, 1000);
  api.down = true;
  const took = await advanceUntil(clock, () => !a.elector.isLeader(), 250, 30_000);
  await a.run;
  assert.ok(took >= 10_000 && took <= 10_000 + 2_000 + 2_000, `stepped down after ${took} ms`);
  assert.deepEqual(a.events, ["started", "stopped"]);
  a.client.close();
});

test("invalid timing is rejected", () => {
  const client = new Client({ server: "x", request: () => Promise.reject(new Error("unused")), stream: () => Promise.reject(new Error("unused")), close: () => undefined });
  const base = { client, namespace: "n", name: "l", identity: "i", onStartedLeading: () => undefined };
  assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration/);
  assert.throws(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }), /renewDeadline/);
});
