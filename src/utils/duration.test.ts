import { test } from "node:test";
import assert from "node:assert/strict";
import { DurationError, formatDuration, parseDuration, parsePositiveDuration } from "./duration.ts";

test("parses Go durations into milliseconds", () => {
  const cases: [string, number][] = [
    ["24h", 86_400_000],
    ["1h30m", 5_400_000],
    ["500ms", 500],
    ["1.5s", 1500],
    [".5s", 500],
    ["2m3s", 123_000],
    ["1h0m0s", 3_600_000],
    ["0", 0],
    ["-5s", -5000],
    ["+5s", 5000],
    ["1us", 0.001],
    ["1µs", 0.001],
    ["1000000ns", 1],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test("rejects bad input with a message naming it", () => {
  for (const text of ["", "24", "h", "1d", "1h 30m", "5 s", "1.2.3s", "abc", "-", "1hm"]) {
    assert.throws(() => parseDuration(text), (err: unknown) => err instanceof DurationError && err.message.startsWith(`invalid duration ${JSON.stringify(text)}`), text);
  }
  assert.throws(() => parseDuration("24"), /missing unit after 24/);
  assert.throws(() => parseDuration("1d"), /unknown unit "d"/);
});

test("positive durations exclude zero and negatives", () => {
  assert.equal(parsePositiveDuration("1m"), 60_000);
  assert.throws(() => parsePositiveDuration("0"), /must be positive/);
  assert.throws(() => parsePositiveDuration("-1h"), /must be positive/);
  assert.throws(() => parsePositiveDuration("0s"), /must be positive/);
});

test("formats like Go's Duration.String and round-trips", () => {
  assert.equal(formatDuration(86_400_000), "24h0m0s");
  assert.equal(formatDuration(90_000), "1m30s");
  assert.equal(formatDuration(500), "500ms");
  assert.equal(formatDuration(1500), "1.5s");
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(-5000), "-5s");
  for (const ms of [86_400_000, 5_400_000, 1500, 123_000, 250]) assert.equal(parseDuration(formatDuration(ms)), ms);
});
