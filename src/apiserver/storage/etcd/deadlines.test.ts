import assert from "node:assert/strict";
import { it } from "node:test";
import { Deadlines } from "./deadlines.ts";

void it("expires each call once its timeout passed since it started, in order, unless it finished first", () => {
  let t = 0;
  const d = new Deadlines<string>(1000, () => t);
  const expired: string[] = [];
  d.add("a", () => expired.push("a"));
  t = 400;
  d.add("b", () => expired.push("b"));
  d.add("c", () => expired.push("c"));
  d.delete("c");
  d.check();
  assert.deepEqual(expired, []);
  t = 1000;
  d.check();
  assert.deepEqual(expired, ["a"]);
  t = 1399;
  d.check();
  assert.deepEqual(expired, ["a"]);
  t = 1400;
  d.check();
  assert.deepEqual(expired, ["a", "b"], "b expired once, c never (it finished)");
  assert.equal(d.size, 0);
  d.check();
  assert.deepEqual(expired, ["a", "b"]);
});

void it("expires calls by its own timer, which stops when no call is left", async () => {
  const d = new Deadlines<number>(20);
  let expired = 0;
  d.add(1, () => expired++);
  d.delete(1);
  d.add(2, () => expired++);
  // The real timer fires this expiry: within the timeout plus one check interval (5 ms here).
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (expired > 0) {
        clearInterval(poll);
        resolve();
      }
    }, 1);
  });
  assert.equal(expired, 1);
  assert.equal(d.size, 0);
});
