// The test reporter's failure summary (scripts/file-times.mjs): what a CI log's tail shows of a failed run.
import assert from "node:assert/strict";
import { test } from "node:test";
// @ts-expect-error: a plain ES module of the test command, without type declarations
import fileTimes, { describeFailure } from "../../scripts/file-times.mjs";

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

/** The reporter's lines for these runner events, parsed. */
async function linesFor(events: { type: string; data: Record<string, unknown> }[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  async function* source() {
    yield* events;
  }
  for await (const l of fileTimes(source()) as AsyncIterable<string>) out.push(JSON.parse(l) as Record<string, unknown>);
  return out;
}

test("a file that fails as a whole (reported after its end) is counted with its stderr's tail; a passing file beside it is not", async () => {
  const file = `${process.cwd()}/test/x.test.ts`;
  const other = `${process.cwd()}/test/y.test.ts`;
  const whole = (f: string) => ({ file: f, name: f, nesting: 0 });
  const lines = await linesFor([
    { type: "test:dequeue", data: whole(file) },
    { type: "test:stderr", data: { file, message: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module './nope.ts'\n" } },
    { type: "test:complete", data: whole(file) },
    { type: "test:fail", data: { ...whole(file), details: { error: runnerError("testCodeFailure", new Error("test failed")) } } },
    { type: "test:dequeue", data: whole(other) },
    { type: "test:pass", data: { file: other, name: "fine", nesting: 0 } },
    { type: "test:complete", data: whole(other) },
  ]);
  assert.deepEqual(lines.map((l) => [l.file, l.fail]), [["test/x.test.ts", 1], ["test/y.test.ts", 0]]);
  const [failure] = lines[0]!.failures as string[];
  assert.match(failure!, /^test\/x\.test\.ts: test failed\n.*Cannot find module '\.\/nope\.ts'/s);
});
