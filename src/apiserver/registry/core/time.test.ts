import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRFC3339, normalizeMicroTime, normalizeTime } from "./time.ts";

describe("metav1 Time and MicroTime", () => {
  it("normalizes Time to UTC seconds", () => {
    assert.equal(normalizeTime("2024-01-01T00:00:00Z"), "2024-01-01T00:00:00Z");
    assert.equal(normalizeTime("2024-01-01T05:30:15.999+05:30"), "2024-01-01T00:00:15Z");
    assert.equal(normalizeTime("2023-12-31T23:00:00-02:00"), "2024-01-01T01:00:00Z");
  });

  it("normalizes MicroTime to six fractional digits, truncating finer ones", () => {
    assert.equal(normalizeMicroTime("2024-01-01T00:00:00Z"), "2024-01-01T00:00:00.000000Z");
    assert.equal(normalizeMicroTime("2024-01-01T00:00:00.1Z"), "2024-01-01T00:00:00.100000Z");
    assert.equal(normalizeMicroTime("2024-01-01T01:00:00.123456789+01:00"), "2024-01-01T00:00:00.123456Z");
  });

  it("leaves values that are not RFC 3339 alone", () => {
    assert.equal(normalizeTime("yesterday"), "yesterday");
    assert.equal(normalizeMicroTime("2024-13-01T00:00:00Z"), "2024-13-01T00:00:00Z");
    assert.equal(isRFC3339("2024-01-01T00:00:00Z"), true);
    assert.equal(isRFC3339("2024-01-01 00:00:00"), false);
    assert.equal(isRFC3339(5), false);
  });
});
