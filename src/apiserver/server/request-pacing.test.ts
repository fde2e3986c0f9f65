import assert from "node:assert/strict";
import { it } from "node:test";
import { pacedPerTurn } from "./request-pacing.ts";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

void it("starts at most perTurn requests per event-loop turn, the others in order in the next turns", async () => {
  const started: number[] = [];
  const paced = pacedPerTurn((n: number, _res: string) => started.push(n), 4);
  for (let i = 0; i < 10; i++) paced(i, "res");
  assert.deepEqual(started, [0, 1, 2, 3]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7]);
  // A request arriving while others wait goes behind them.
  paced(10, "res");
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // The next turn has its whole allowance again.
  await turn();
  for (let i = 11; i < 15; i++) paced(i, "res");
  assert.equal(started.length, 15);
});

void it("passes both arguments through", () => {
  const seen: [string, number][] = [];
  pacedPerTurn((a: string, b: number) => seen.push([a, b]), 1)("req", 7);
  assert.deepEqual(seen, [["req", 7]]);
});

void it("refuses an allowance that is not a positive integer", () => {
  for (const n of [0, -1, 1.5, Number.NaN]) assert.throws(() => pacedPerTurn(() => undefined, n), RangeError);
});
