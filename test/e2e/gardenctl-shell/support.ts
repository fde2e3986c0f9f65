// Helpers of the gardenctl-shell e2e: a child process whose output can be awaited, and a way to run
// a command behind a real pseudo-terminal (util-linux `script`, which returns the child's exit code).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";

export class Proc {
  out = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcess) {
    const take = (d: Buffer): void => {
      this.out += d.toString();
      for (const w of this.waiters.splice(0)) w();
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    this.exited = new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
  }

  /** Resolves with the first match of `re` in the output (searched from `from`); rejects after timeoutMs or on exit. */
  async waitFor(re: RegExp, timeoutMs: number, from = 0): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    let done = false;
    void this.exited.then(() => {
      done = true;
      for (const w of this.waiters.splice(0)) w();
    });
    for (;;) {
      const m = re.exec(this.out.slice(from));
      if (m) return m;
      if (done) throw new Error(`process exited before ${re} appeared; output:\n${this.out}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${re}; output:\n${this.out}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  write(text: string): void {
    this.child.stdin?.write(text);
  }
}

/** Quotes one word for /bin/sh. */
export function shQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs argv with a pty as its controlling terminal (stdin, stdout and stderr); we talk to it through pipes. */
export function inPty(argv: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn("script", ["-q", "-f", "-e", "-c", argv.map(shQuote).join(" "), "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  return new Proc(child);
}

export function piped(argv: string[], env: NodeJS.ProcessEnv): Proc {
  return new Proc(spawn(argv[0]!, argv.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] }));
}

/** True when util-linux `script` is on PATH. */
export function hasScript(): boolean {
  return spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;
}
