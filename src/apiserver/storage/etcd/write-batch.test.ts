import assert from "node:assert/strict";
import { it } from "node:test";
import { type BatchedWrite, type WriteOutcome, WriteBatcher } from "./write-batch.ts";

/** A write of key with a value of this many bytes, and its share of the Txn's operations. */
const write = (key: string, value: string, weight = 1): BatchedWrite => ({ key, bytes: value.length, weight });

/** A fake transaction: records each batch and answers it when the test says so. */
function fakeSend() {
  const batches: { keys: string[]; answer(outcomes: WriteOutcome<string>[] | Error): void }[] = [];
  const send = (batch: BatchedWrite[]) =>
    new Promise<WriteOutcome<string>[]>((resolve, reject) => {
      batches.push({ keys: batch.map((c) => c.key), answer: (o) => (o instanceof Error ? reject(o) : resolve(o)) });
    });
  const allDone = (n: number) => Array.from({ length: n }, (_, i) => ({ done: `ok${i}` }));
  return { batches, send, allDone };
}

/** A turn of the event loop: the batcher's answers settle in microtasks, its next batch goes out in the next turn. */
const turn = async () => {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
};

void it("the writes of one turn go out as one batch; those made while it is in flight go out together after it", async () => {
  const { batches, send, allDone } = fakeSend();
  const b = new WriteBatcher<BatchedWrite, string>(send);
  const first = [b.submit(write("a", "1")), b.submit(write("b", "2"))];
  await turn();
  assert.deepEqual(batches.map((x) => x.keys), [["a", "b"]]);
  const second = [b.submit(write("c", "3"))];
  await turn();
  second.push(b.submit(write("d", "4")));
  await turn();
  assert.equal(batches.length, 1, "nothing goes out while a batch is in flight");
  batches[0]!.answer(allDone(2));
  assert.deepEqual(await Promise.all(first), ["ok0", "ok1"]);
  await turn();
  assert.deepEqual(batches.map((x) => x.keys), [["a", "b"], ["c", "d"]]);
  batches[1]!.answer(allDone(2));
  assert.deepEqual(await Promise.all(second), ["ok0", "ok1"]);
});

void it("a batch holds each key once and keeps to its limits of operations and bytes; a write over the byte limit goes alone", async () => {
  const { batches, send, allDone } = fakeSend();
  const b = new WriteBatcher<BatchedWrite, string>(send, { maxOps: 4, maxBytes: 10 });
  const all = [
    b.submit(write("a", "1")),
    b.submit(write("a", "2")),
    b.submit(write("b", "123456789")),
    b.submit(write("c", "1", 2)),
    b.submit(write("d", "x".repeat(50))),
    b.submit(write("e", "1", 2)),
  ];
  for (const expected of [["a", "b"], ["a", "c"], ["d"], ["e"]]) {
    await turn();
    const last = batches[batches.length - 1]!;
    assert.deepEqual(last.keys, expected);
    last.answer(allDone(expected.length));
  }
  await Promise.all(all);
  assert.equal(batches.length, 4);
});

void it("a refused batch settles the writes it names and sends the others again; an unexplained refusal sends each alone", async () => {
  const { batches, send } = fakeSend();
  const b = new WriteBatcher<BatchedWrite, string>(send);
  const [a, x, c] = [b.submit(write("a", "1")), b.submit(write("x", "2")), b.submit(write("c", "3"))];
  await turn();
  batches[0]!.answer(["again", { error: new Error("x exists") }, "again"]);
  await assert.rejects(x, /x exists/);
  await turn();
  assert.deepEqual(batches[1]!.keys, ["a", "c"]);
  batches[1]!.answer(["again", "again"]);
  await turn();
  assert.deepEqual(batches[2]!.keys, ["a"]);
  batches[2]!.answer([{ done: "a" }]);
  await turn();
  assert.deepEqual(batches[3]!.keys, ["c"]);
  batches[3]!.answer(["again"]);
  assert.equal(await a, "a");
  await assert.rejects(c, /refused without a reason/);
});

void it("a failed transaction fails every write of its batch, and the next batch still goes out", async () => {
  const { batches, send } = fakeSend();
  const b = new WriteBatcher<BatchedWrite, string>(send);
  const both = [b.submit(write("a", "1")), b.submit(write("b", "2"))];
  await turn();
  const later = b.submit(write("c", "3"));
  batches[0]!.answer(new Error("etcd unavailable"));
  for (const p of both) await assert.rejects(p, /etcd unavailable/);
  await turn();
  assert.deepEqual(batches[1]!.keys, ["c"]);
  batches[1]!.answer([{ done: "c" }]);
  assert.equal(await later, "c");
});
