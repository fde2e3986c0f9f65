// A node:test reporter that writes how long each test file took, one JSON line per file:
// {"file": "test/...", "ms": 1234, "fail": 0}. scripts/test.mjs runs the files one at a time
// (--test-concurrency=1), so a file's time is from the moment the runner starts it to the moment it
// starts the next one (or the run ends): its process start, module loading, hooks and tests.
import { relative } from "node:path";

export default async function* fileTimes(source) {
  let current;
  const fails = new Map();
  const line = (end) => `${JSON.stringify({ file: relative(process.cwd(), current.file), ms: end - current.start, fail: fails.get(current.file) ?? 0 })}\n`;
  for await (const event of source) {
    const { file, name, nesting } = event.data ?? {};
    if (!file) continue;
    if (event.type === "test:fail") fails.set(file, (fails.get(file) ?? 0) + 1);
    // The runner dequeues a whole file as a test named by its path.
    if (event.type !== "test:dequeue" || nesting !== 0 || name !== file) continue;
    const now = Date.now();
    if (current) yield line(now);
    current = { file, start: now };
  }
  if (current) yield line(Date.now());
}
