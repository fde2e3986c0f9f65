import assert from "node:assert/strict";
import test from "node:test";
import { KeyedMutex } from "./lock.ts";

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

test("run: one holder per key at a time, other keys independent", async () => {
  const m = new KeyedMutex();
  const order: string[] = [];
  const g = gate();
  const first = m.run("a", async () => (order.push("a1 start"), await g.promise, order.push("a1 end")));
  const second = m.run("a", async () => void order.push("a2"));
  await m.run("b", async () => void order.push("b"));
  g.open();
  await Promise.all([first, second]);
  assert.deepEqual(order, ["a1 start", "b", "a1 end", "a2"]);
});

test("runShared: callers queued behind a holder share one run that starts after all of them", async () => {
  const m = new KeyedMutex();
  const g = gate();
  let state = 0;
  const seen: number[] = [];
  const sync = async (): Promise<number> => (seen.push(state), state);
  const holder = m.run("k", () => g.promise);
  const waiting: Promise<number>[] = [];
  for (let i = 0; i < 5; i++) {
    state++; // a change, then a request to act on it
    waiting.push(m.runShared("k", sync));
  }
  g.open();
  await holder;
  // One run for the five, and it saw the last change.
  assert.deepEqual(await Promise.all(waiting), [5, 5, 5, 5, 5]);
  assert.deepEqual(seen, [5]);
});

test("runShared: a caller arriving after a run started gets a run of its own that sees its change", async () => {
  const m = new KeyedMutex();
  const started = gate();
  const release = gate();
  let state = 0;
  const seen: number[] = [];
  let calls = 0;
  const sync = async (): Promise<number> => {
    const s = state;
    seen.push(s);
    if (calls++ === 0) {
      started.open();
      await release.promise;
    }
    return s;
  };
  const first = m.runShared("k", sync);
  await started.promise;
  state = 1;
  const second = m.runShared("k", sync);
  const third = m.runShared("k", sync);
  release.open();
  assert.equal(await first, 0);
  assert.equal(await second, 1);
  assert.equal(second, third);
  assert.deepEqual(seen, [0, 1]);
});

test("runShared: a failed run fails every caller that shared it, and the next call runs again", async () => {
  const m = new KeyedMutex();
  const g = gate();
  const holder = m.run("k", () => g.promise);
  let runs = 0;
  const failing = async (): Promise<void> => {
    runs++;
    throw new Error("worker gone");
  };
  const a = m.runShared("k", failing);
  const b = m.runShared("k", failing);
  g.open();
  await holder;
  await assert.rejects(a, /worker gone/);
  await assert.rejects(b, /worker gone/);
  assert.equal(runs, 1);
  assert.equal(await m.runShared("k", async () => "again"), "again");
});
