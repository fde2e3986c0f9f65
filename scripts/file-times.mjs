// A node:test reporter that writes how long each test file took, one JSON line per file:
// {"file": "test/...", "ms": 1234, "idleMs": 0, "fail": 0}. scripts/test.mjs runs the files one at a
// time (--test-concurrency=1), so a file's time is from the moment the runner starts it to the moment
// its process ends (or the runner starts the next one): its process start, module loading, hooks and
// tests. idleMs is how long the process lived on after its last test result or output: a silent
// file-level after hook, or a timer or a handle left behind, which the whole run waits for. failures
// lists the file's first failed tests and hooks with their error, so a run's summary can show why.
import { relative } from "node:path";

const MAX_FAILURES = 5;
const MAX_TEXT = 3000;

/**
 * A failed test or hook as "name: message" with the first lines of its stack, bounded; undefined for a
 * suite that failed only because a test in it did (that test has its own entry).
 */
export function describeFailure(name, error) {
  if (!error || error.failureType === "subtestsFailed") return undefined;
  const cause = error.cause ?? error;
  const message = cause instanceof Error ? cause.message : String(cause);
  const stack = cause instanceof Error && typeof cause.stack === "string" ? cause.stack.split("\n").filter((l) => /^\s+at /.test(l) && !/\(?node:|\(<anonymous>\)/.test(l)).slice(0, 6) : [];
  const kind = error.failureType && error.failureType !== "testCodeFailure" ? ` (${error.failureType})` : "";
  return [`${name}${kind}: ${message}`, ...stack].join("\n").slice(0, MAX_TEXT);
}

/** Keeps a file's failure, or counts it as left out past the first MAX_FAILURES. */
function keep(f, failure) {
  if (f.failures.length < MAX_FAILURES) f.failures.push(failure);
  else f.leftOut++;
}

export default async function* fileTimes(source) {
  // The file running now, and the one whose process ended: the runner reports a whole file's failure (its
  // process exited non-zero, e.g. it could not load) after completing it, so that file's line waits for it.
  let current;
  let ended;
  const line = (f) => {
    const { file, start, end, lastActive, fail, failures, leftOut } = f;
    return `${JSON.stringify({ file: relative(process.cwd(), file), ms: end - start, idleMs: Math.max(0, end - lastActive), fail, failures, leftOut })}\n`;
  };
  for await (const event of source) {
    const { file, name, nesting } = event.data ?? {};
    if (!file) continue;
    const now = Date.now();
    // The runner dequeues a whole file as a test named by its path, and completes it when its process ends.
    const wholeFile = nesting === 0 && name === file;
    if (wholeFile && event.type === "test:dequeue") {
      if (ended) yield line(ended);
      if (current) yield line({ ...current, end: now });
      ended = undefined;
      current = { file, start: now, lastActive: now, fail: 0, failures: [], leftOut: 0, stderr: "" };
    } else if (wholeFile && event.type === "test:complete") {
      if (current?.file === file) ended = { ...current, end: now };
      current = undefined;
    } else if (wholeFile && event.type === "test:fail" && ended?.file === file) {
      ended.fail++;
      const why = describeFailure(relative(process.cwd(), file), event.data.details?.error);
      const stderr = ended.stderr.trim();
      if (why) keep(ended, stderr ? `${why}\n${stderr.slice(-MAX_TEXT / 2)}` : why);
    } else if (current?.file === file && ["test:pass", "test:fail", "test:stdout", "test:stderr"].includes(event.type)) {
      current.lastActive = now;
      // The last of the file's stderr, for a failure of the whole file.
      if (event.type === "test:stderr") current.stderr = (current.stderr + String(event.data.message ?? "")).slice(-MAX_TEXT);
      if (event.type === "test:fail") {
        current.fail++;
        const failure = describeFailure(name, event.data.details?.error);
        if (failure) keep(current, failure);
      }
    }
  }
  if (ended) yield line(ended);
  if (current) yield line({ ...current, end: Date.now() });
}
