import assert from "node:assert/strict";
import { test } from "node:test";
import { SpawnThreads, type ThreadOutcome } from "./spawn-threads.ts";

const node = process.execPath;
const job = (args: string[], more: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}) => ({ command: node, args, input: more.input ?? "", timeoutMs: more.timeoutMs ?? 10_000, ...(more.env ? { env: more.env } : {}) });
const exited = (o: ThreadOutcome) => {
  assert.ok(!("error" in o), `expected an exit, got ${JSON.stringify(o)}`);
  return o;
};

test("jobs in flight together are spread over the threads and each gets its own output", async () => {
  const threads = new SpawnThreads(2, 1024);
  try {
    const outs = await Promise.all(Array.from({ length: 12 }, (_, i) => threads.run(job(["-e", `process.stdin.pipe(process.stdout); console.error(${i})`], { input: `in${i}` }))));
    outs.forEach((o, i) => {
      const r = exited(o);
      assert.deepEqual([r.exitCode, r.stdout, r.stderr.trim()], [0, `in${i}`, String(i)]);
    });
  } finally {
    await threads.stop();
  }
});

test("extra environment variables are added to the process's own; output is capped", async () => {
  process.env.GA_SPAWN_THREADS_TEST = "from-parent";
  const threads = new SpawnThreads(1, 5);
  try {
    const r = exited(await threads.run(job(["-e", "process.stdout.write(process.env.GA_SPAWN_THREADS_TEST + ',' + process.env.GA_EXTRA)"], { env: { GA_EXTRA: "extra" } })));
    // The cap is checked before each chunk is added: the first chunk is kept whole.
    assert.equal(r.stdout, "from-parent,extra");
    const big = exited(await threads.run(job(["-e", "process.stdout.write('a'.repeat(70000)); setTimeout(() => process.stdout.write('b'), 50)"])));
    assert.ok(!big.stdout.includes("b"), "a chunk after the cap is dropped");
  } finally {
    delete process.env.GA_SPAWN_THREADS_TEST;
    await threads.stop();
  }
});

test("a missing binary is an error with its errno name; a job past its time is killed", async () => {
  const threads = new SpawnThreads(1, 1024);
  try {
    const missing = await threads.run({ command: "/nonexistent/ga-binary", args: [], input: "", timeoutMs: 1000 });
    assert.ok("error" in missing && missing.code === "ENOENT", JSON.stringify(missing));
    const slow = exited(await threads.run(job(["-e", "setTimeout(() => {}, 30000)"], { timeoutMs: 200 })));
    assert.deepEqual([slow.exitCode, slow.signal], [null, "SIGKILL"]);
  } finally {
    await threads.stop();
  }
});

test("jobs in flight when the threads stop end with an error, and the next job starts a new thread", async () => {
  const threads = new SpawnThreads(1, 1024);
  const inFlight = threads.run(job(["-e", "setTimeout(() => {}, 1000)"]));
  await new Promise((r) => setImmediate(r));
  await threads.stop();
  const o = await inFlight;
  assert.ok("error" in o && /thread that spawns commands exited/.test(o.error), JSON.stringify(o));
  try {
    assert.equal(exited(await threads.run(job(["-e", "process.stdout.write('again')"]))).stdout, "again");
  } finally {
    await threads.stop();
  }
});
