import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SpawnServer, type SpawnOutcome } from "./spawn-server.ts";

const node = process.execPath;
const job = (args: string[], more: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}) => ({ command: node, args, input: more.input ?? "", timeoutMs: more.timeoutMs ?? 10_000, ...(more.env ? { env: more.env } : {}) });
const exited = (o: SpawnOutcome) => {
  assert.ok(!("error" in o), `expected an exit, got ${JSON.stringify(o)}`);
  return o;
};

test("jobs in flight together each get their own output, also with newlines and large output", async () => {
  const server = new SpawnServer(1 << 20);
  try {
    const outs = await Promise.all(Array.from({ length: 12 }, (_, i) => server.run(job(["-e", `process.stdin.pipe(process.stdout); console.error(${i})`], { input: `in${i}\nline 2` }))));
    outs.forEach((o, i) => {
      const r = exited(o);
      assert.deepEqual([r.exitCode, r.stdout, r.stderr.trim()], [0, `in${i}\nline 2`, String(i)]);
    });
    const big = exited(await server.run(job(["-e", "process.stdout.write('x'.repeat(300000))"])));
    assert.equal(big.stdout.length, 300000);
  } finally {
    await server.stop();
  }
});

test("commands get the process's environment as it is now, with the job's variables added; output is capped", async () => {
  const server = new SpawnServer(5);
  const show = ["-e", "process.stdout.write(process.env.GA_SPAWN_TEST + ',' + process.env.GA_EXTRA)"];
  try {
    process.env.GA_SPAWN_TEST = "first";
    assert.equal(exited(await server.run(job(show, { env: { GA_EXTRA: "extra" } }))).stdout, "first,extra");
    // A change after the helper started reaches the next command.
    process.env.GA_SPAWN_TEST = "second";
    assert.equal(exited(await server.run(job(show))).stdout, "second,undefined");
    // The cap is checked before each chunk is added: the first chunk is kept whole.
    const big = exited(await server.run(job(["-e", "process.stdout.write('a'.repeat(70000)); setTimeout(() => process.stdout.write('b'), 50)"])));
    assert.ok(!big.stdout.includes("b"), "a chunk after the cap is dropped");
  } finally {
    delete process.env.GA_SPAWN_TEST;
    await server.stop();
  }
});

test("a missing binary is an error with its errno name; a job past its time is killed", async () => {
  const server = new SpawnServer(1024);
  try {
    const missing = await server.run({ command: "/nonexistent/ga-binary", args: [], input: "", timeoutMs: 1000 });
    assert.ok("error" in missing && missing.code === "ENOENT", JSON.stringify(missing));
    const slow = exited(await server.run(job(["-e", "setTimeout(() => {}, 30000)"], { timeoutMs: 200 })));
    assert.deepEqual([slow.exitCode, slow.signal], [null, "SIGKILL"]);
  } finally {
    await server.stop();
  }
});

test("jobs in flight when the helper stops end with an error, and the next job starts a new helper", async () => {
  const server = new SpawnServer(1024);
  const inFlight = server.run(job(["-e", "setTimeout(() => {}, 1000)"]));
  await new Promise((r) => setImmediate(r));
  await server.stop();
  const o = await inFlight;
  assert.ok("error" in o && /process that spawns commands exited/.test(o.error), JSON.stringify(o));
  try {
    assert.equal(exited(await server.run(job(["-e", "process.stdout.write('again')"]))).stdout, "again");
  } finally {
    await server.stop();
  }
});

test("a helper killed with a job in flight fails that job by name, and the next job gets a new helper", async () => {
  const server = new SpawnServer(1024);
  try {
    const pid = Number(exited(await server.run(job(["-e", "process.stdout.write(String(process.ppid))"]))).stdout);
    const inFlight = server.run(job(["-e", "setTimeout(() => {}, 2000)"]));
    await new Promise((r) => setImmediate(r));
    process.kill(pid, "SIGKILL");
    const o = await inFlight;
    assert.ok("error" in o && /exited \(SIGKILL\)/.test(o.error), JSON.stringify(o));
    const again = Number(exited(await server.run(job(["-e", "process.stdout.write(String(process.ppid))"]))).stdout);
    assert.ok(again !== pid && again > 0, `a new helper: ${pid} -> ${again}`);
  } finally {
    await server.stop();
  }
});

test("an idle helper does not keep its process alive, and ends with it", () => {
  // A process that runs one command and then has nothing to do must exit on its own, taking the helper along.
  const here = dirname(fileURLToPath(import.meta.url));
  const script = `
    import { SpawnServer } from ${JSON.stringify(join(here, "spawn-server.ts"))};
    const s = new SpawnServer(1024);
    const r = await s.run({ command: process.execPath, args: ["-e", "process.stdout.write(String(process.ppid))"], input: "", timeoutMs: 10000 });
    console.log(r.stdout);`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 0, `exited on its own: ${r.stderr}`);
  const helper = Number(r.stdout.trim());
  assert.ok(helper > 0, r.stdout);
  // The helper sees its stdin close and exits; give it a moment to be reaped.
  const deadline = Date.now() + 5000;
  // Alive: in the process table and not a zombie (an orphan waits there until it is reaped).
  const alive = () => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${helper}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  while (alive() && Date.now() < deadline) spawnSync("sleep", ["0.05"]);
  assert.equal(alive(), false, `helper ${helper} ended with its process`);
});
