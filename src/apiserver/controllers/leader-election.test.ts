import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Lease } from "../../apis/coordination/v1/types.ts";
import { leaseDefinition } from "../registry/coordination/lease/definition.ts";
import type { InternalClient } from "../registry/client.ts";
import { newTestServer, type TestServer } from "../registry/generic/testing/server.ts";
import { CONTROLLERS_LEASE, ControllerElection } from "./leader-election.ts";
import { ensureDefaultNamespaces } from "./namespace-deletion.ts";

const LEASES = { group: "coordination.k8s.io", resource: "leases" };
const timing = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 1000 };

interface Candidate {
  election: ControllerElection;
  /** How often its controllers were started and stopped. */
  started: number;
  stopped: number;
  /** While true, every request of this candidate fails (a replica cut off from etcd). */
  cutOff: boolean;
}

function candidate(s: TestServer, identity: string): Candidate {
  const c: Candidate = { election: undefined as unknown as ControllerElection, started: 0, stopped: 0, cutOff: false };
  const client = new Proxy(s.client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => (c.cutOff ? Promise.reject(new Error("etcd is unavailable")) : (v as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as InternalClient;
  c.election = new ControllerElection({
    ...timing,
    client,
    clock: s.clock,
    identity,
    lead: () => {
      c.started++;
      return Promise.resolve({ stop: () => void c.stopped++ });
    },
    onEvent: () => undefined,
  });
  return c;
}

/** Moves the fake clock forward in small steps, letting the elections' requests complete. */
async function pass(s: TestServer, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    s.clock.step(100);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
}

async function holder(s: TestServer): Promise<string | undefined> {
  const lease = (await s.client.get(LEASES, CONTROLLERS_LEASE.namespace, CONTROLLERS_LEASE.name)) as Lease | undefined;
  return lease?.spec?.holderIdentity;
}

async function setup(): Promise<TestServer> {
  const s = newTestServer([leaseDefinition]);
  await ensureDefaultNamespaces(s.client);
  return s;
}

describe("ControllerElection", () => {
  it("lets one replica lead; the other takes over once the leader stops renewing, and the cut-off leader stops its controllers", async () => {
    const s = await setup();
    const a = candidate(s, "a");
    const b = candidate(s, "b");
    await a.election.start();
    await b.election.start();
    assert.equal(a.started, 1, "a lone first replica leads before start() resolves");
    assert.equal(b.started, 0);
    await pass(s, 10_000);
    assert.deepEqual([a.started, b.started, await holder(s)], [1, 0, "a"], "the leader renews; the other waits");

    a.cutOff = true;
    await pass(s, 2500);
    assert.equal(b.started, 0, "the lease is honoured for its duration after the last observed renewal");
    // b judges expiry from when it observed a's last renewal, which its polls (every retryPeriod
    // to twice that) see up to 2 s late: the lease is free for b at most 6 s after the cut, and b
    // tries again within 2 s after that.
    await pass(s, 6000);
    assert.equal(a.stopped, 1, "a leader that cannot renew within renewDeadline stops its controllers");
    assert.equal(b.started, 1, "the other replica took over");
    assert.equal(await holder(s), "b");

    a.cutOff = false;
    await pass(s, 10_000);
    assert.deepEqual([a.started, b.started, b.stopped, await holder(s)], [1, 1, 0, "b"], "the old leader comes back as a follower");
    await a.election.stop();
    await b.election.stop();
  });

  it("hands the lease back on stop, so the other replica leads at its next attempt", async () => {
    const s = await setup();
    const a = candidate(s, "a");
    const b = candidate(s, "b");
    await a.election.start();
    await b.election.start();
    await a.election.stop();
    assert.equal(a.stopped, 1);
    assert.equal(await holder(s), "");
    await pass(s, 2100);
    assert.equal(b.started, 1);
    await b.election.stop();
  });

  it("a restarted replica (same identity) leads again at once", async () => {
    const s = await setup();
    const a = candidate(s, "a");
    await a.election.start();
    const other = candidate(s, "b");
    await other.election.start();
    // a is SIGKILLed (no release) and comes back.
    a.cutOff = true;
    const again = candidate(s, "a");
    await again.election.start();
    assert.equal(again.started, 1);
    assert.equal(other.started, 0);
    await again.election.stop();
    await other.election.stop();
    a.cutOff = false;
    await a.election.stop();
  });
});
