import assert from "node:assert/strict";
import { it } from "node:test";
import { pacedPerTurn } from "./request-pacing.ts";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

void it("starts no request where it arrived, then at most perTurn per event-loop turn, the others in order in the next turns", async () => {
  const started: number[] = [];
  const paced = pacedPerTurn((n: number, _res: string) => started.push(n), 4);
  for (let i = 0; i < 10; i++) paced(i, "res");
  assert.deepEqual(started, [], "nothing starts before the turn's check phase");
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3]);
  // A request arriving while others wait goes behind them.
  paced(10, "res");
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // Nothing waits: the next turn has its whole allowance again.
  for (let i = 11; i < 15; i++) paced(i, "res");
  assert.equal(started.length, 11);
  await turn();
  assert.equal(started.length, 15);
});

void it("starts a request after the I/O callbacks of its turn, in the check phase", async () => {
  const order: string[] = [];
  const paced = pacedPerTurn((what: string, _b: number) => order.push(what), 4);
  // A timer's callback stands for the poll phase's callbacks: the request arrives in one of them,
  // and what that callback does after it (an answer written) comes first.
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      paced("request", 0);
      order.push("the rest of the callback");
      queueMicrotask(() => order.push("its microtasks"));
      setImmediate(() => resolve());
    }, 0),
  );
  assert.deepEqual(order, ["the rest of the callback", "its microtasks", "request"]);
});

void it("passes both arguments through", async () => {
  const seen: [string, number][] = [];
  pacedPerTurn((a: string, b: number) => seen.push([a, b]), 1)("req", 7);
  await turn();
  assert.deepEqual(seen, [["req", 7]]);
});

void it("refuses an allowance that is not a positive integer", () => {
  for (const n of [0, -1, 1.5, Number.NaN]) assert.throws(() => pacedPerTurn(() => undefined, n), RangeError);
});
