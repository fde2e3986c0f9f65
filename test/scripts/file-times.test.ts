// The test reporter's failure summary (scripts/file-times.mjs): what a CI log's tail shows of a failed run.
import assert from "node:assert/strict";
import { test } from "node:test";
// @ts-expect-error: a plain ES module of the test command, without type declarations
import { describeFailure } from "../../scripts/file-times.mjs";

/** An error as node's test runner reports it: a wrapper with a failureType and the thrown error as cause. */
function runnerError(failureType: string, cause?: unknown): Error {
  return Object.assign(new Error("test failed"), { failureType, cause });
}

test("a failed test shows its name, the thrown message and its own stack frames, not node's", () => {
  const thrown = new Error("expected 1 to be 2");
  thrown.stack = ["Error: expected 1 to be 2", "    at check (/repo/a.test.ts:5:26)", "    at Test.run (node:internal/test_runner/test:796:25)", "    at /repo/b.ts:1:1"].join("\n");
  assert.equal(describeFailure("adds", runnerError("testCodeFailure", thrown)), "adds: expected 1 to be 2\n    at check (/repo/a.test.ts:5:26)\n    at /repo/b.ts:1:1");
});

test("a failed hook or a timeout names its kind; a suite failed only by its tests is left out", () => {
  assert.equal(describeFailure("suite", runnerError("hookFailed", new Error("after boom")))?.split("\n")[0], "suite (hookFailed): after boom");
  assert.equal(describeFailure("slow", Object.assign(new Error("test timed out after 10ms"), { failureType: "testTimeoutFailure" }))?.split("\n")[0], "slow (testTimeoutFailure): test timed out after 10ms");
  assert.equal(describeFailure("suite", runnerError("subtestsFailed")), undefined);
  assert.equal(describeFailure("x", undefined), undefined);
});

test("a huge message is cut, so one failure cannot flood the summary", () => {
  const text = describeFailure("big", runnerError("testCodeFailure", new Error("x".repeat(100_000))));
  assert.ok(text !== undefined && text.length <= 3000, `length ${text?.length}`);
});
