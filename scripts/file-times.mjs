// A node:test reporter that writes how long each test file took, one JSON line per file:
// {"file": "test/...", "ms": 1234, "idleMs": 0, "fail": 0}. scripts/test.mjs runs the files one at a
// time (--test-concurrency=1), so a file's time is from the moment the runner starts it to the moment
// its process ends (or the runner starts the next one): its process start, module loading, hooks and
// tests. idleMs is how long the process lived on after its last test result or output: a silent
// file-level after hook, or a timer or a handle left behind, which the whole run waits for.
import { relative } from "node:path";

export default async function* fileTimes(source) {
  let current;
  const line = (end) =>
    `${JSON.stringify({ file: relative(process.cwd(), current.file), ms: end - current.start, idleMs: Math.max(0, end - current.lastActive), fail: current.fail })}\n`;
  for await (const event of source) {
    const { file, name, nesting } = event.data ?? {};
    if (!file) continue;
    const now = Date.now();
    // The runner dequeues a whole file as a test named by its path, and completes it when its process ends.
    const wholeFile = nesting === 0 && name === file;
    if (wholeFile && event.type === "test:dequeue") {
      if (current) yield line(now);
      current = { file, start: now, lastActive: now, fail: 0 };
    } else if (wholeFile && event.type === "test:complete") {
      if (current?.file === file) yield line(now);
      current = undefined;
    } else if (current?.file === file && ["test:pass", "test:fail", "test:stdout", "test:stderr"].includes(event.type)) {
      current.lastActive = now;
      if (event.type === "test:fail") current.fail++;
    }
  }
  if (current) yield line(Date.now());
}
