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

test("microTime writes six fractional digits", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05.678000Z");
  assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))), "2026-01-02T03:04:05.000000Z");
});
