import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommandError, HostExec, RecordingExec, inNetns } from "./exec.ts";
import { isAlive, waitGone } from "./procs.ts";
import { pollFor } from "../utils/poll.ts";

const node = process.execPath;

test("run returns stdout and stderr; standard input is passed through", async () => {
  const r = await new HostExec().run(node, ["-e", "process.stdin.pipe(process.stdout); console.error('note')"], { input: "hello" });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, "hello");
  assert.equal(r.stderr.trim(), "note");
});

test("a failing command names itself, its exit code and its stderr", async () => {
  const err = await new HostExec().run(node, ["-e", "console.error('boom'); process.exit(3)"]).catch((e: unknown) => e);
  assert.ok(err instanceof CommandError);
  assert.equal(err.exitCode, 3);
  assert.equal(err.stderr.trim(), "boom");
  assert.match(err.message, /failed with exit code 3: boom/);
  assert.ok(err.message.includes(node));
});

test("okExitCodes accepts other exit codes; a missing binary is a CommandError with exit code -1", async () => {
  const r = await new HostExec().run(node, ["-e", "process.exit(1)"], { okExitCodes: [0, 1] });
  assert.equal(r.exitCode, 1);
  const err = await new HostExec().run("/nonexistent/ga-binary", []).catch((e: unknown) => e);
  assert.ok(err instanceof CommandError);
  assert.equal(err.exitCode, -1);
  assert.match(err.message, /not found/);
});

test("a command that runs too long is killed and reported", async () => {
  const err = await new HostExec().run(node, ["-e", "setTimeout(() => {}, 30000)"], { timeoutMs: 200 }).catch((e: unknown) => e);
  assert.ok(err instanceof CommandError);
  assert.match(err.message, /killed by SIGKILL/);
});

test("commands in a namespace run through nsenter", () => {
  assert.deepEqual(inNetns("ga-x", "nft", ["-f", "-"]), ["nsenter", ["--net=/run/netns/ga-x", "--", "nft", "-f", "-"]]);
  assert.deepEqual(inNetns(undefined, "ip", ["link"]), ["ip", ["link"]]);
});

test("spawnDetached starts a process that is named by pid and start time and logs to a file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ga-exec-"));
  try {
    const log = join(dir, "out.log");
    const p = await new HostExec().spawnDetached(node, ["-e", "console.log('started'); setTimeout(() => {}, 60000)"], { logFile: log });
    assert.ok(isAlive(p));
    assert.ok(!isAlive({ pid: p.pid, startTime: "1" }), "another start time is another process");
    await pollFor("the child's first line in its log", async () => (await readFile(log, "utf8")).includes("started"), { intervalMs: 10 });
    assert.match(await readFile(log, "utf8"), /started/);
    process.kill(p.pid, "SIGKILL");
    assert.ok(await waitGone([p]));
    // The child is unref'd: a timer keeps the event loop alive until its exit is seen.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([p.exited, new Promise((r) => (timer = setTimeout(() => r("timeout"), 10_000)))]);
    clearTimeout(timer);
    assert.equal(code, null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("RecordingExec records calls and answers from a function", async () => {
  const exec = new RecordingExec((c) => (c.command === "false" ? { exitCode: 1, stderr: "no" } : { stdout: "ok" }));
  assert.equal((await exec.run("ip", ["link"], { netns: "ga-a" })).stdout, "ok");
  await assert.rejects(exec.run("false", []), CommandError);
  assert.deepEqual(exec.lines(), ["ga-a: ip link", "false"]);
});
