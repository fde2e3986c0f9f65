import assert from "node:assert/strict";
import { test } from "node:test";
import { WatchBudget } from "./watch-budget.ts";

test("a burst over the server's bound ends the largest stalled backlogs first, and only until it is under", () => {
  const bound = 100_000;
  const budget = new WatchBudget({ perWatchBytes: 1e9, perUserBytes: 1e9, totalBytes: bound, perUserWatches: 10_000 });
  const evicted: number[] = [];
  // 2000 stalled watches of 1 to 50 bytes over four users (ties on purpose): 51,000 bytes, under the bound.
  const sizes = Array.from({ length: 2000 }, (_, i) => 1 + ((i * 37) % 50));
  const accounts = sizes.map((_, i) => budget.open(`u${i % 4}`, () => evicted.push(i)));
  accounts.forEach((a, i) => assert.ok(a.set(sizes[i]!, false, true)));
  assert.equal(budget.evictions, 0);
  // A watch that is not stalled (so never a candidate) takes 80,000 bytes: 131,000 in all.
  const reader = budget.open("u0", () => assert.fail("a watch that takes its data is not ended"));
  assert.ok(reader.set(80_000, false, false));

  // What should go: the largest first, the earlier opened first among equals, until under the bound.
  let total = sizes.reduce((s, n) => s + n, 0) + 80_000;
  const expected: number[] = [];
  for (const i of sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b)) {
    if (total <= bound) break;
    expected.push(i);
    total -= sizes[i]!;
  }
  assert.deepEqual(evicted, expected);
  assert.equal(budget.evictions, expected.length);
  assert.equal(budget.totalBytes, total);
  assert.ok(budget.totalBytes <= bound && budget.totalBytes + sizes[expected.at(-1)!]! > bound, "no more than needed");
  assert.equal(budget.watches, 2001 - expected.length);
});
