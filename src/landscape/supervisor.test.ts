import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { FakeClock } from "../utils/clock.ts";
import { Supervisor, backoffMs } from "./supervisor.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "supervisor-"));
  dirs.push(d);
  return d;
}

async function until(what: string, fn: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (fn()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out: ${what}`);
}

test("backoff doubles from the initial delay up to the cap", () => {
  assert.deepEqual([1, 2, 3, 4, 10].map((n) => backoffMs(n, 500, 3000)), [500, 1000, 2000, 3000, 3000]);
});

test("an exiting component is restarted after its backoff, with doubling delays, and its pid file follows it", async () => {
  const d = dir();
  const clock = new FakeClock();
  const lines: string[] = [];
  const s = new Supervisor({ pidDir: d, clock, initialBackoffMs: 500, log: (l) => lines.push(l) });
  s.start({ name: "c", command: "sh", args: ["-c", "echo started; exit 3"], logFile: join(d, "c.log") });
  await until("first exit", () => s.status()[0]!.state === "backoff");
  assert.equal(s.status()[0]!.lastExit, "exit code 3");
  assert.equal(existsSync(join(d, "c.pid")), false);
  assert.match(lines.at(-1)!, /c exited \(exit code 3\); restarting in 500 ms/);
  clock.step(499);
  assert.equal(s.status()[0]!.state, "backoff");
  clock.step(1);
  assert.equal(s.status()[0]!.restarts, 1);
  await until("second exit", () => lines.length === 2);
  assert.match(lines[1]!, /restarting in 1000 ms/);
  await s.stop();
  clock.step(10_000);
  assert.equal(s.status()[0]!.state, "stopped");
  assert.equal(s.status()[0]!.restarts, 1, "no restart after stop");
  assert.equal(readFileSync(join(d, "c.log"), "utf8"), "started\nstarted\n");
});

test("stop terminates the component's whole process group", async () => {
  const d = dir();
  const s = new Supervisor({ pidDir: d });
  s.start({ name: "long", command: "sh", args: ["-c", `sleep 60 & echo $! > ${join(d, "grandchild")}; wait`], logFile: join(d, "long.log") });
  await until("grandchild started", () => existsSync(join(d, "grandchild")) && readFileSync(join(d, "grandchild"), "utf8").endsWith("\n"));
  const pid = Number(readFileSync(join(d, "long.pid"), "utf8"));
  const grandchild = Number(readFileSync(join(d, "grandchild"), "utf8"));
  assert.equal(s.status()[0]!.pid, pid);
  await s.stop();
  assert.equal(existsSync(join(d, "long.pid")), false);
  await until("grandchild gone", () => !existsSync(`/proc/${grandchild}`) || readFileSync(`/proc/${grandchild}/stat`, "utf8").split(" ")[2] === "Z");
});

test("stop terminates every component at once: two that ignore SIGTERM are killed after one grace period, not two", { timeout: 20_000 }, async () => {
  const d = dir();
  const clock = new FakeClock();
  const s = new Supervisor({ pidDir: d, clock });
  for (const name of ["a", "b"]) s.start({ name, command: "sh", args: ["-c", `trap "" TERM; echo > ${join(d, `${name}.trapped`)}; sleep 60`], logFile: join(d, `${name}.log`) });
  await until("both ignore SIGTERM", () => existsSync(join(d, "a.trapped")) && existsSync(join(d, "b.trapped")));
  const stopping = s.stop(1000);
  clock.step(999);
  assert.deepEqual(s.status().map((c) => c.state), ["running", "running"], "both are in their grace period");
  // One grace period for both: with one component after the other, the second's would never end here.
  clock.step(1);
  await stopping;
  assert.deepEqual(s.status().map((c) => c.state), ["stopped", "stopped"]);
});

test("restart replaces a running component with its new command line at once: no backoff, no failure, the old process group gone", async () => {
  const d = dir();
  const clock = new FakeClock();
  const lines: string[] = [];
  const s = new Supervisor({ pidDir: d, clock, log: (l) => lines.push(l) });
  s.start({ name: "r", command: "sh", args: ["-c", "echo one; exec sleep 60"], logFile: join(d, "r.log") });
  await until("first running", () => existsSync(join(d, "r.pid")) && existsSync(join(d, "r.log")) && readFileSync(join(d, "r.log"), "utf8") === "one\n");
  const first = s.status()[0]!.pid;
  await s.restart({ name: "r", command: "sh", args: ["-c", "echo two; exec sleep 60"], logFile: join(d, "r.log") });
  assert.equal(s.status()[0]!.state, "running", "started again without waiting for the clock");
  assert.notEqual(s.status()[0]!.pid, first);
  assert.equal(s.status()[0]!.restarts, 1);
  assert.ok(!lines.some((l) => /restarting in/.test(l)), "the replaced process's exit is no failure");
  await until("second started", () => readFileSync(join(d, "r.log"), "utf8") === "one\ntwo\n");
  await until("first gone", () => !existsSync(`/proc/${first}`) || readFileSync(`/proc/${first}/stat`, "utf8").split(" ")[2] === "Z");
  await s.stop();
  await s.restart({ name: "r", command: "sh", args: ["-c", "echo three"], logFile: join(d, "r.log") });
  assert.equal(s.status()[0]!.state, "stopped", "nothing is started after stop");
});
