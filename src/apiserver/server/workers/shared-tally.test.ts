// The shared watch tally of --workers: one table in shared memory, counted in alike by every
// worker's attachment; two budgets on it keep the bounds of one server; a worker that exits (even
// holding the lock) stops counting.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StatusError } from "../../../apimachinery/errors.ts";
import { WatchBudget } from "../../endpoints/watch-budget.ts";
import { SharedTally } from "./shared-tally.ts";

void describe("SharedTally", () => {
  void it("counts watches and bytes per user and in total, alike through every worker's attachment", () => {
    const primary = SharedTally.create(2, 8);
    const a = SharedTally.attach(primary.shared, 0);
    const b = SharedTally.attach(primary.shared, 1);
    const k1 = a.open("alice", 2)!;
    const k2 = b.open("alice", 2)!;
    assert.equal(a.open("alice", 2), undefined, "alice has 2 already");
    assert.equal(b.watches("alice"), 2);
    b.addBytes(k2, 300);
    a.addBytes(k1, 200);
    const bob = b.open("bob", 2)!;
    b.addBytes(bob, 50);
    assert.deepEqual([a.userBytes(k1), a.userBytes(bob), a.totalBytes()], [500, 50, 550]);
    a.close(k1, 200);
    assert.deepEqual([b.watches("alice"), b.userBytes(k2), b.totalBytes()], [1, 300, 350]);
    b.close(k2, 300);
    b.close(bob, 50);
    assert.deepEqual([a.watches("alice"), a.watches("bob"), a.totalBytes()], [0, 0, 0]);
  });

  void it("keeps every user findable through removals in a crowded table, and refuses a user beyond its room with 429", () => {
    const t = SharedTally.attach(SharedTally.create(1, 8).shared, 0);
    const users = Array.from({ length: 7 }, (_, i) => `user-${i}`);
    const keys = users.map((u) => t.open(u, 10)!);
    assert.throws(() => t.open("one-too-many", 10), (e: StatusError) => e.code === 429 && e.reason === "TooManyRequests");
    // Remove every other user (moving probe runs back), the rest keep their counts.
    for (let i = 0; i < 7; i += 2) t.close(keys[i]!, 0);
    for (let i = 0; i < 7; i++) assert.equal(t.watches(users[i]!), i % 2 === 0 ? 0 : 1, users[i]);
    assert.ok(t.open("one-too-many", 10), "room again");
  });

  void it("forgets the watches and bytes of a worker that exited, also when it died holding the lock", () => {
    const primary = SharedTally.create(2, 16);
    const w0 = SharedTally.attach(primary.shared, 0);
    const w1 = SharedTally.attach(primary.shared, 1);
    const users = Array.from({ length: 9 }, (_, i) => `user-${i}`);
    for (const u of users) w0.addBytes(w0.open(u, 3)!, 10);
    w1.addBytes(w1.open("user-4", 3)!, 7);
    w1.open("user-8", 3);
    // Worker 0 is gone in the middle of a change: the lock word still names it.
    Atomics.store(new Int32Array(primary.shared.buffer), 0, 1);
    primary.forget(0);
    assert.deepEqual(users.map((u) => w1.watches(u)), [0, 0, 0, 0, 1, 0, 0, 0, 1]);
    assert.equal(w1.totalBytes(), 7);
    // Its successor counts afresh in the same column.
    const again = SharedTally.attach(primary.shared, 0);
    assert.ok(again.open("user-4", 2));
    assert.equal(again.open("user-4", 2), undefined);
  });

  void it("gives two budgets on one tally the bounds of one server", () => {
    const tally = SharedTally.create(2, 16);
    const limits = { perUserWatches: 2, perWatchBytes: 1e9, perUserBytes: 1e9, totalBytes: 1000 };
    const worker0 = new WatchBudget(limits, SharedTally.attach(tally.shared, 0));
    const worker1 = new WatchBudget(limits, SharedTally.attach(tally.shared, 1));
    const evicted: string[] = [];
    const a = worker0.open("alice", () => evicted.push("a"));
    worker1.open("alice", () => evicted.push("b"));
    assert.throws(() => worker0.admit("alice"), (e: StatusError) => e.code === 429);
    assert.throws(() => worker1.open("alice", () => {}), (e: StatusError) => e.code === 429);
    const c = worker1.open("carol", () => evicted.push("c"));
    // Worker 0's stalled backlog and worker 1's together pass the server's bound: the worker whose
    // watch grew ends its own largest stalled backlog.
    assert.equal(a.set(600, false, true), true);
    assert.equal(worker1.totalBytes, 600);
    assert.equal(c.set(500, false, true), false);
    assert.deepEqual(evicted, ["c"]);
    assert.equal(worker0.totalBytes, 600);
  });
});
