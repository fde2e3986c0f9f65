import assert from "node:assert/strict";
import { it } from "node:test";
import { SharedReads } from "./shared-reads.ts";

function deferred() {
  let resolve!: (v: number) => void;
  const promise = new Promise<number>((r) => (resolve = r));
  return { promise, resolve };
}

void it("calls made while a read runs share the next read, never the running one", async () => {
  const shared = new SharedReads<number>();
  const reads: ReturnType<typeof deferred>[] = [];
  const fn = () => {
    const d = deferred();
    reads.push(d);
    return d.promise;
  };
  const a = shared.read("k", fn);
  const b = shared.read("k", fn); // before the first read started: shares it
  await Promise.resolve();
  assert.equal(reads.length, 1);
  const c = shared.read("k", fn); // the first read is running: waits for the next
  const d = shared.read("k", fn);
  const other = shared.read("other", fn); // another key is independent
  await Promise.resolve();
  assert.equal(reads.length, 2, "one read per key runs");
  reads[0]!.resolve(1);
  assert.deepEqual(await Promise.all([a, b]), [1, 1]);
  await new Promise((r) => setImmediate(r));
  assert.equal(reads.length, 3, "the waiting read starts after the running one ended");
  reads[2]!.resolve(2);
  reads[1]!.resolve(9);
  assert.deepEqual(await Promise.all([c, d, other]), [2, 2, 9]);
});

void it("a failed read fails its callers only", async () => {
  const shared = new SharedReads<number>();
  await assert.rejects(shared.read("k", () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await shared.read("k", () => Promise.resolve(3)), 3);
});
