import assert from "node:assert/strict";
import { test } from "node:test";
import { assertServedThroughout, type LivenessReport } from "./liveness.ts";

const report = (r: Partial<LivenessReport>): LivenessReport => ({ count: 10, maxMs: 50, failures: [], hostStallMs: 0, ...r });

test("a bystander answered within the bound passes; a slower one fails, naming both parts of the bound", () => {
  assertServedThroughout(report({ maxMs: 999 }));
  assert.throws(() => assertServedThroughout(report({ maxMs: 1_500, hostStallMs: 100 })), /took 1500 ms \(bound 1000 ms \+ 100 ms an idle thread stalled\)/);
});

test("the machine's own stall widens the bound, and only by that much", () => {
  assertServedThroughout(report({ maxMs: 1_900, hostStallMs: 950 }));
  assert.throws(() => assertServedThroughout(report({ maxMs: 1_960, hostStallMs: 950 })), /bound 1000 ms \+ 950 ms/);
});

test("no request or a failed one fails whatever the times", () => {
  assert.throws(() => assertServedThroughout(report({ count: 0 })), /sent no request/);
  assert.throws(() => assertServedThroughout(report({ failures: ["GET /x: 500"], hostStallMs: 10_000 })), /failed during the attack: GET \/x: 500/);
});
