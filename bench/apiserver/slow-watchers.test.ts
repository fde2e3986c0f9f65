import assert from "node:assert/strict";
import { test } from "node:test";
import { readersDuring } from "./slow-watchers.ts";

test("a failed read is counted and the readers go on", async () => {
  let calls = 0;
  let failures = 0;
  let enough!: () => void;
  const enoughCalls = new Promise<void>((resolve) => (enough = resolve));
  const readers = readersDuring(async () => {
    calls++;
    if (calls % 3 === 0) {
      failures++;
      throw new Error(`socket hang up ${failures}`);
    }
    if (calls >= 12) enough();
  });
  await enoughCalls;
  const figures = await readers.stop();
  assert.equal(figures.failed, failures);
  assert.ok(figures.failed >= 1);
  assert.equal(figures.latencies.length, calls - failures);
  assert.equal(figures.firstError, "socket hang up 1");
});
