// Commands started by a small helper process (docs/machines.md#creating-many-machines). Node's spawn forks
// the calling process, and a fork copies the caller's page tables: from provider-local (about 230 MiB
// resident) a command costs about 3.3 ms of CPU before it runs, from a fresh Node process about 1 ms; and
// spawn waits until the child has exec'd, which on a busy host is several milliseconds with the calling
// thread stopped. So one helper process per process that runs commands does the spawning: the event loop
// writes a job as one JSON line to its stdin and reads the outcome as one JSON line from its stdout.
// The helper has no loader and no TypeScript (`node -e`), ends when its parent's end of the pipe closes
// (also when the parent was killed), and is started again on the next job after it died.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

/** The helper's process name (its command line and /proc/<pid>/comm), by which the benchmark adds its CPU to its parent's. */
export const SPAWN_HELPER_TITLE = "ga-spawn-helper";

/** The helper's code (CommonJS, evaluated as is). argv[1]: the output cap per stream, in characters. */
const SOURCE = `
"use strict";
process.title = "${SPAWN_HELPER_TITLE}";
const { spawn } = require("node:child_process");
const maxOutput = Number(process.argv[1]);
let base = process.env;
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
function run(job) {
  if (job.baseEnv) base = job.baseEnv;
  let sent = false;
  const done = (m) => { if (!sent) { sent = true; send({ id: job.id, ...m }); } };
  let child;
  try {
    child = spawn(job.command, job.args, { stdio: ["pipe", "pipe", "pipe"], env: job.env ? { ...base, ...job.env } : base });
  } catch (err) {
    return done({ error: String((err && err.message) || err), code: err && err.code });
  }
  const timer = setTimeout(() => child.kill("SIGKILL"), job.timeoutMs);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => { if (stdout.length < maxOutput) stdout += d; });
  child.stderr.setEncoding("utf8").on("data", (d) => { if (stderr.length < maxOutput) stderr += d; });
  child.once("error", (err) => { clearTimeout(timer); done({ error: err.message, code: err.code }); });
  child.once("close", (exitCode, signal) => { clearTimeout(timer); done({ exitCode, signal, stdout, stderr }); });
  child.stdin.on("error", () => {});
  child.stdin.end(job.input);
}
const lines = require("node:readline").createInterface({ input: process.stdin });
lines.on("line", (line) => { try { run(JSON.parse(line)); } catch (err) { process.stderr.write(String(err) + "\\n"); } });
lines.on("close", () => process.exit(0));
`;

export interface SpawnJob {
  command: string;
  args: string[];
  input: string;
  timeoutMs: number;
  /** Added to the process's environment. */
  env?: Record<string, string>;
}

/** What became of a job: the child's exit, or why it could not start (`code`: the errno name, e.g. ENOENT). */
export type SpawnOutcome =
  | { exitCode: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { error: string; code?: string };

interface Helper {
  child: ChildProcessWithoutNullStreams;
  pending: Map<number, (o: SpawnOutcome) => void>;
  /** The environment last sent (JSON), so a change of process.env reaches the commands. */
  env?: string;
}

/** Spawns commands from one helper process, started on first use and after it died. */
export class SpawnServer {
  private helper: Helper | undefined;
  private nextId = 0;

  constructor(private readonly maxOutput: number) {}

  run(job: SpawnJob): Promise<SpawnOutcome> {
    const h = this.helper ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      h.pending.set(id, resolve);
      // Referenced only while a job is in flight: an idle helper never keeps the process alive.
      if (h.pending.size === 1) setReferenced(h, true);
      const env = JSON.stringify(process.env);
      const baseEnv = env === h.env ? {} : { baseEnv: process.env };
      h.env = env;
      h.child.stdin.write(`${JSON.stringify({ id, ...job, ...baseEnv })}\n`);
    });
  }

  /** Ends the helper; jobs in flight end with an error (their children run on). */
  async stop(): Promise<void> {
    const h = this.helper;
    if (!h) return;
    this.helper = undefined;
    const exited = new Promise((resolve) => h.child.once("close", resolve));
    setReferenced(h, true);
    h.child.stdin.end();
    if (h.child.exitCode === null && h.child.signalCode === null) await exited;
  }

  private start(): Helper {
    // Its own environment without NODE_OPTIONS (a loader it does not need); the commands get process.env,
    // sent with the first job.
    const { NODE_OPTIONS: _, ...env } = process.env;
    const child = spawn(process.execPath, ["-e", SOURCE, String(this.maxOutput)], { stdio: ["pipe", "pipe", "pipe"], env });
    const h: Helper = { child, pending: new Map() };
    this.helper = h;
    setReferenced(h, false);
    createInterface({ input: child.stdout }).on("line", (line) => {
      let m: { id: number } & SpawnOutcome;
      try {
        m = JSON.parse(line) as { id: number } & SpawnOutcome;
      } catch {
        return;
      }
      const done = h.pending.get(m.id);
      if (!done) return;
      h.pending.delete(m.id);
      if (h.pending.size === 0) setReferenced(h, false);
      const { id: _id, ...outcome } = m;
      done(outcome);
    });
    // A write to a helper that has just died: its close, below, ends the jobs.
    child.stdin.on("error", () => undefined);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-2000)));
    const fail = (why: string): void => {
      if (this.helper === h) this.helper = undefined;
      for (const done of h.pending.values()) done({ error: `the process that spawns commands ${why}${stderr ? `: ${stderr.trim()}` : ""}` });
      h.pending.clear();
    };
    child.on("error", (err) => fail(`failed: ${err.message}`));
    child.on("close", (code, signal) => fail(`exited (${signal ?? code})`));
    return h;
  }
}

type Referable = { ref(): unknown; unref(): unknown };

function setReferenced(h: Helper, on: boolean): void {
  // The pipes are sockets (ref/unref), though typed as plain streams.
  for (const x of [h.child, h.child.stdin, h.child.stdout, h.child.stderr] as unknown as Referable[]) {
    if (on) x.ref();
    else x.unref();
  }
}
