import assert from "node:assert/strict";
import { it } from "node:test";
import { CreateBatcher, type CreateOutcome, type CreateRequest } from "./create-batch.ts";

/** A fake transaction: records each batch and answers it when the test says so. */
function fakeSend() {
  const batches: { keys: string[]; answer(outcomes: CreateOutcome<string>[] | Error): void }[] = [];
  const send = (batch: CreateRequest[]) =>
    new Promise<CreateOutcome<string>[]>((resolve, reject) => {
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

void it("the creates of one turn go out as one batch; those made while it is in flight go out together after it", async () => {
  const { batches, send, allDone } = fakeSend();
  const b = new CreateBatcher(send);
  const first = [b.create("a", "1"), b.create("b", "2")];
  await turn();
  assert.deepEqual(batches.map((x) => x.keys), [["a", "b"]]);
  const second = [b.create("c", "3")];
  await turn();
  second.push(b.create("d", "4"));
  await turn();
  assert.equal(batches.length, 1, "nothing goes out while a batch is in flight");
  batches[0]!.answer(allDone(2));
  assert.deepEqual(await Promise.all(first), ["ok0", "ok1"]);
  await turn();
  assert.deepEqual(batches.map((x) => x.keys), [["a", "b"], ["c", "d"]]);
  batches[1]!.answer(allDone(2));
  assert.deepEqual(await Promise.all(second), ["ok0", "ok1"]);
});

void it("a batch holds each key once and keeps to its limits; a create over the byte limit goes alone", async () => {
  const { batches, send, allDone } = fakeSend();
  const b = new CreateBatcher(send, { maxCreates: 3, maxBytes: 10 });
  const all = [b.create("a", "1"), b.create("a", "2"), b.create("b", "123456789"), b.create("c", "1"), b.create("d", "x".repeat(50)), b.create("e", "1")];
  for (const expected of [["a", "b"], ["a", "c", "e"], ["d"]]) {
    await turn();
    const last = batches[batches.length - 1]!;
    assert.deepEqual(last.keys, expected);
    last.answer(allDone(expected.length));
  }
  await Promise.all(all);
  assert.equal(batches.length, 3);
});

void it("a refused batch settles the creates it names and sends the others again; an unexplained refusal sends each alone", async () => {
  const { batches, send } = fakeSend();
  const b = new CreateBatcher(send);
  const [a, x, c] = [b.create("a", "1"), b.create("x", "2"), b.create("c", "3")];
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

void it("a failed transaction fails every create of its batch, and the next batch still goes out", async () => {
  const { batches, send } = fakeSend();
  const b = new CreateBatcher(send);
  const both = [b.create("a", "1"), b.create("b", "2")];
  await turn();
  const later = b.create("c", "3");
  batches[0]!.answer(new Error("etcd unavailable"));
  for (const p of both) await assert.rejects(p, /etcd unavailable/);
  await turn();
  assert.deepEqual(batches[1]!.keys, ["c"]);
  batches[1]!.answer([{ done: "c" }]);
  assert.equal(await later, "c");
});
