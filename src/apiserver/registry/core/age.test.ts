import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { humanDuration, translateTimestampSince } from "./age.ts";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe("humanDuration", () => {
  it("formats like Kubernetes' duration.HumanDuration", () => {
    const cases: [number, string][] = [
      [-3 * s, "<invalid>"],
      [-1.5 * s, "0s"],
      [0, "0s"],
      [59 * s, "59s"],
      [119 * s, "119s"],
      [2 * m, "2m"],
      [5 * m + 3 * s, "5m3s"],
      [9 * m + 59 * s, "9m59s"],
      [10 * m + 30 * s, "10m"],
      [179 * m, "179m"],
      [3 * h, "3h"],
      [3 * h + 2 * m, "3h2m"],
      [7 * h + 59 * m, "7h59m"],
      [8 * h, "8h"],
      [47 * h, "47h"],
      [2 * d, "2d"],
      [2 * d + 3 * h, "2d3h"],
      [8 * d, "8d"],
      [729 * d, "729d"],
      [730 * d, "2y"],
      [3 * 365 * d + 20 * d, "3y20d"],
      [9 * 365 * d, "9y"],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
  });

  it("reports missing or zero timestamps as <unknown>", () => {
    const now = new Date("2024-01-01T00:10:00Z");
    assert.equal(translateTimestampSince("2024-01-01T00:00:00Z", now), "10m");
    assert.equal(translateTimestampSince(undefined, now), "<unknown>");
    assert.equal(translateTimestampSince("0001-01-01T00:00:00Z", now), "<unknown>");
  });
});
