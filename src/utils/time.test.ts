import assert from "node:assert/strict";
import { test } from "node:test";
import { metaTime, microTime, rfc3339Nano } from "./time.ts";

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

test("microTime keeps the microseconds of fractional epoch milliseconds, before 1970 too, and never carries into the next second", () => {
  const second = Date.UTC(2026, 0, 2, 3, 4, 5);
  assert.equal(microTime(second + 678.901), "2026-01-02T03:04:05.678901Z");
  assert.equal(microTime(second + 0.001), "2026-01-02T03:04:05.000001Z");
  assert.equal(microTime(5_000 + 999.9996), "1970-01-01T00:00:05.999999Z");
  assert.equal(microTime(-0.5), "1969-12-31T23:59:59.999500Z");
  assert.throws(() => microTime(Number.NaN), RangeError);
});

test("rfc3339Nano writes the fraction without trailing zeros, and none for a whole second", () => {
  assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 120)), "2026-01-02T03:04:05.12Z");
  assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), "2026-01-02T03:04:05Z");
  assert.equal(rfc3339Nano(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 7))), "2026-01-02T03:04:05.007Z");
  assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5) + 0.25), "2026-01-02T03:04:05.00025Z");
});
