import assert from "node:assert/strict";
import { test } from "node:test";
import { metaTime, microTime } from "./time.ts";

test("metaTime drops the fraction of a second (also before 1970), from a Date or epoch ms", () => {
  const ms = Date.UTC(2026, 0, 2, 3, 4, 5, 999);
  assert.equal(metaTime(ms), "2026-01-02T03:04:05Z");
  assert.equal(metaTime(new Date(ms)), "2026-01-02T03:04:05Z");
  assert.equal(metaTime(Date.UTC(2026, 0, 2, 3, 4, 5)), "2026-01-02T03:04:05Z");
  assert.equal(metaTime(-1), "1969-12-31T23:59:59Z");
});

test("metaTime remembers only the last second: the next second, an earlier one and an invalid date are formatted anew", () => {
  const second = Date.UTC(2026, 0, 2, 3, 4, 5);
  assert.equal(metaTime(second + 10), "2026-01-02T03:04:05Z");
  assert.equal(metaTime(second + 990), "2026-01-02T03:04:05Z");
  assert.equal(metaTime(second + 1000), "2026-01-02T03:04:06Z");
  assert.equal(metaTime(second - 1), "2026-01-02T03:04:04Z");
  assert.throws(() => metaTime(new Date(Number.NaN)), RangeError);
  assert.throws(() => metaTime(Number.NaN), RangeError);
  assert.equal(metaTime(second - 1), "2026-01-02T03:04:04Z");
});

test("microTime writes six fractional digits", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05.678000Z");
  assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))), "2026-01-02T03:04:05.000000Z");
});
