// SIGTERM at a random point (root): of `gardener-local up`, and of bench/bastion-local while it works.
// Whatever the interrupted command leaves, `gardener-local down --state-dir DIR` (without --prefix: the
// state directory records it) removes: afterwards no namespace, link, mount, process or nft table of the
// landscape is left. Points are drawn from a seeded PRNG (INTERRUPT_SEED=<n> replays; the seed is printed).
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO } from "../../../src/landscape/components.ts";
import { prng } from "../bastion-chaos/support.ts";
import { hostSnapshot, skipUnlessRoot } from "../support/landscape.ts";

const SEED = Number(process.env.INTERRUPT_SEED ?? Date.now() % 2 ** 31);
const random = prng(SEED);
const progress = (line: string): void => void process.stderr.write(`${new Date().toISOString()} ${line}\n`);

function started(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code, signal) => r(code ?? (signal ? -1 : null))));
  return { child, output: () => out, exited };
}

/** Resolves once `output()` matches re (or the process exits): the moment to interrupt at. */
async function until(p: ReturnType<typeof started>, re: RegExp, timeoutMs: number): Promise<void> {
  let done = false;
  void p.exited.then(() => (done = true));
  const deadline = Date.now() + timeoutMs;
  while (!done && !re.test(p.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

function down(dir: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO, "bin", "gardener-local.js"), "down", "--state-dir", dir], { timeout: 180_000, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
}

async function interruptAndDown(p: ReturnType<typeof started>, dir: string, prefix: string, what: string): Promise<void> {
  p.child.kill("SIGTERM");
  const code = await Promise.race([p.exited, new Promise<string>((r) => setTimeout(() => r("still running"), 180_000).unref())]);
  progress(`${what} exited with ${code} after SIGTERM`);
  assert.notEqual(code, "still running", p.output());
  if (existsSync(dir)) {
    const d = await down(dir);
    assert.equal(d.code, 0, d.out);
    progress(`down: ${d.out.trim().split("\n").join(" | ")}`);
  }
  const left = hostSnapshot(dir, prefix);
  assert.deepEqual(left, { netns: [], links: [], mounts: [], tables: [], processes: [] }, `after ${what} and down:\n${p.output()}`);
  rmSync(dir, { recursive: true, force: true });
}

describe(`SIGTERM at a random point, then down (seed ${SEED})`, { skip: skipUnlessRoot, timeout: 900_000 }, () => {
  test("of gardener-local up", async () => {
    const prefix = "glu-";
    assert.deepEqual(hostSnapshot("/nonexistent-landscape-dir", prefix).netns, []);
    const dir = mkdtempSync(join(tmpdir(), "interrupt-up-"));
    const p = started([join(REPO, "bin", "gardener-local.js"), "up", "--state-dir", dir, "--prefix", prefix, "--ports", "48443,48444,48445"]);
    const ms = Math.round(500 + random() * 25_000);
    progress(`up: SIGTERM after ${ms} ms`);
    await until(p, /landscape ready; kubeconfigs/, ms);
    await interruptAndDown(p, dir, prefix, "up");
  });

  test("of bench/bastion-local", async () => {
    const prefix = "glt-";
    const moments = [/supervisor started/, /garden API server ready/, /shoot local created/, /sequential: /, /parallel: /, /alive: creating/];
    const moment = moments[Math.floor(random() * moments.length)]!;
    const extra = Math.round(random() * 3000);
    progress(`bench: SIGTERM ${extra} ms after ${moment}`);
    const p = started(["--import", "tsx", join(REPO, "bench", "bastion-local", "main.ts"), "--prefix", prefix, "--ports", "48453,48454,48455", "--sequential", "3", "--parallel", "6", "--concurrency", "3", "--ssh", "1", "--alive", "30"]);
    await until(p, moment, 240_000);
    await new Promise((r) => setTimeout(r, extra));
    const dir = /state directory (\S+)/.exec(p.output())?.[1];
    assert.ok(dir, p.output());
    await interruptAndDown(p, dir, prefix, "the bench");
  });
});
