// Commands started from worker threads (docs/machines.md#creating-many-machines). Node's spawn is
// synchronous: it forks the calling process and waits until the child has exec'd, and on a busy machine
// that wait (the child has to be scheduled first) is several milliseconds per command. A component that
// runs commands by the hundred (provider-local wiring ten machines at once) would spend it with its event
// loop stopped. Here a few threads do the spawning, each waiting only for its own child; the event loop
// posts a message and goes on.
import { SHARE_ENV, Worker } from "node:worker_threads";

/** The thread's code (CommonJS, evaluated as is: no loader, no TypeScript). */
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { spawn } = require("node:child_process");
parentPort.on("message", (job) => {
  let sent = false;
  const send = (m) => { if (!sent) { sent = true; parentPort.postMessage({ id: job.id, ...m }); } };
  let child;
  try {
    child = spawn(job.command, job.args, { stdio: ["pipe", "pipe", "pipe"], env: job.env ? { ...process.env, ...job.env } : process.env });
  } catch (err) {
    return send({ error: String(err && err.message || err), code: err && err.code });
  }
  const timer = setTimeout(() => child.kill("SIGKILL"), job.timeoutMs);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => { if (stdout.length < workerData.maxOutput) stdout += d; });
  child.stderr.setEncoding("utf8").on("data", (d) => { if (stderr.length < workerData.maxOutput) stderr += d; });
  child.once("error", (err) => { clearTimeout(timer); send({ error: err.message, code: err.code }); });
  child.once("close", (exitCode, signal) => { clearTimeout(timer); send({ exitCode, signal, stdout, stderr }); });
  child.stdin.on("error", () => {});
  child.stdin.end(job.input);
});
`;

export interface ThreadJob {
  command: string;
  args: string[];
  input: string;
  timeoutMs: number;
  /** Added to the process's environment (shared with the threads). */
  env?: Record<string, string>;
}

/** What became of a job: the child's exit, or why it could not start (`code`: the errno name, e.g. ENOENT). */
export type ThreadOutcome =
  | { exitCode: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { error: string; code?: string };

interface Thread {
  worker: Worker;
  pending: Map<number, (o: ThreadOutcome) => void>;
}

/** Spawns commands on `size` worker threads, each job on the thread with the fewest in flight. Threads start on first use and after a crash. */
export class SpawnThreads {
  private readonly threads: (Thread | undefined)[];
  private nextId = 0;

  constructor(
    size: number,
    private readonly maxOutput: number,
  ) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => undefined);
  }

  run(job: ThreadJob): Promise<ThreadOutcome> {
    const t = this.pick();
    const id = this.nextId++;
    return new Promise((resolve) => {
      t.pending.set(id, resolve);
      // Referenced only while a job is in flight: idle threads never keep the process alive.
      t.worker.ref();
      t.worker.postMessage({ id, ...job });
    });
  }

  /** Ends the threads; jobs in flight end with an error (their children run on). */
  async stop(): Promise<void> {
    const all = [...this.threads];
    this.threads.fill(undefined);
    await Promise.all(all.map((t) => t?.worker.terminate()));
  }

  private pick(): Thread {
    let best = -1;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i];
      if (!t) return (this.threads[i] = this.start(i));
      if (best < 0 || t.pending.size < this.threads[best]!.pending.size) best = i;
    }
    return this.threads[best]!;
  }

  private start(slot: number): Thread {
    // execArgv: [] keeps the parent's loader flags (tsx) out of a thread that needs none.
    const worker = new Worker(SOURCE, { eval: true, env: SHARE_ENV, workerData: { maxOutput: this.maxOutput }, execArgv: [], stdout: false, stderr: false });
    const t: Thread = { worker, pending: new Map() };
    worker.unref();
    worker.on("message", (m: { id: number } & ThreadOutcome) => {
      const done = t.pending.get(m.id);
      if (!done) return;
      t.pending.delete(m.id);
      if (t.pending.size === 0) worker.unref();
      const { id: _, ...outcome } = m;
      done(outcome);
    });
    const fail = (why: string): void => {
      if (this.threads[slot] === t) this.threads[slot] = undefined;
      for (const done of t.pending.values()) done({ error: `the thread that spawns commands ${why}` });
      t.pending.clear();
    };
    worker.on("error", (err) => fail(`failed: ${err.message}`));
    worker.on("exit", (code) => fail(`exited (${code})`));
    return t;
  }
}
