// Runs the real kubectl binaries installed by the apt package `kubectl`
// (/usr/lib/google-cloud-sdk/bin/kubectl.1.XX) against a test server.
// HOME and KUBECACHEDIR point into a per-kubeconfig temp folder, so a test never reads the
// developer's ~/.kube and discovery is cached per suite and kubectl version.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

export type KubectlVersion = "1.27" | "1.28" | "1.29" | "1.30" | "1.31" | "1.32" | "1.33";
export const latestKubectl: KubectlVersion = "1.33";
export const oldestKubectl: KubectlVersion = "1.27";

export interface KubectlOptions {
  kubeconfig: string;
  /** Written to kubectl's stdin (e.g. a manifest for `-f -`). */
  input?: string;
  env?: Record<string, string>;
  /** Defaults to `<kubeconfig dir>/kubectl-home-<version>`. */
  homeDir?: string;
  /** Kill kubectl after this long; default 60 s. */
  timeoutMs?: number;
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function kubectlPath(version: KubectlVersion): string {
  return `/usr/lib/google-cloud-sdk/bin/kubectl.${version}`;
}

export function kubectlAvailable(version: KubectlVersion): boolean {
  return existsSync(kubectlPath(version));
}

const warned = new Set<KubectlVersion>();

/**
 * For a test's `skip` option: false when kubectl `version` is installed; otherwise a message naming
 * the missing binary, which is also written to stderr at once (a skip in the test report alone is
 * easy to miss, and a suite that skipped has not shown anything).
 */
export function skipUnlessKubectl(version: KubectlVersion = latestKubectl): string | false {
  if (kubectlAvailable(version)) return false;
  const msg = `kubectl ${version} is not installed: ${kubectlPath(version)} does not exist (apt package kubectl); the kubectl tests are SKIPPED`;
  if (!warned.has(version)) {
    warned.add(version);
    process.stderr.write(`\n*** ${msg}\n\n`);
  }
  return msg;
}

function kubectlEnv(version: KubectlVersion, opts: KubectlOptions): NodeJS.ProcessEnv {
  const home = opts.homeDir ?? join(dirname(opts.kubeconfig), `kubectl-home-${version}`);
  mkdirSync(join(home, "cache"), { recursive: true });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    KUBECACHEDIR: join(home, "cache"),
    KUBECONFIG: opts.kubeconfig,
    ...opts.env,
  };
}

function spawnKubectl(version: KubectlVersion, args: string[], opts: KubectlOptions): ChildProcess {
  return spawn(kubectlPath(version), ["--kubeconfig", opts.kubeconfig, ...args], {
    env: kubectlEnv(version, opts),
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs kubectl to completion. Never rejects for a non-zero exit: check `code`. */
export function kubectl(version: KubectlVersion, args: string[], opts: KubectlOptions): Promise<KubectlResult> {
  const child = spawnKubectl(version, args, opts);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  child.stdin?.end(opts.input ?? "");
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise<KubectlResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kubectl ${version} ${args.join(" ")} timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(kubectlAvailable(version) ? err : new Error(`${kubectlPath(version)} does not exist (apt package kubectl): ${err.message}`, { cause: err }));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like kubectl(), but rejects unless kubectl exits 0; returns stdout. */
export async function kubectlOk(version: KubectlVersion, args: string[], opts: KubectlOptions): Promise<string> {
  const r = await kubectl(version, args, opts);
  if (r.code !== 0) {
    throw new Error(`kubectl ${version} ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  }
  return r.stdout;
}

/** A long-running kubectl (e.g. `get -w`) whose output is read while it runs. */
export interface KubectlStream {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** True once kubectl has exited. */
  exited(): boolean;
  /** Resolves with stdout (or stderr) once it matches `pattern`; rejects after `timeoutMs` or when kubectl exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number, stream?: "stdout" | "stderr"): Promise<string>;
  /** Resolves with kubectl's exit code once it exits by itself; rejects after `timeoutMs`. */
  exit(timeoutMs?: number): Promise<number | null>;
  /** Kills kubectl (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

export function kubectlStream(version: KubectlVersion, args: string[], opts: KubectlOptions): KubectlStream {
  const child = spawnKubectl(version, args, opts);
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((l) => l());
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    notify();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
    notify();
  });
  child.stdin?.end(opts.input ?? "");
  let exitCode: number | null = null;
  const closed = new Promise<void>((res) =>
    child.once("close", (code) => {
      exitCode = code;
      res();
    }),
  );
  let isClosed = false;
  void closed.then(() => {
    isClosed = true;
    notify();
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: () => isClosed,
    waitFor: (pattern, timeoutMs = 20_000, stream = "stdout") =>
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const text = stream === "stdout" ? out : err;
          if (pattern.test(text)) return done(() => resolve(text));
          if (isClosed) return done(() => reject(new Error(`kubectl ${args.join(" ")} exited before ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`kubectl ${args.join(" ")}: no ${pattern} within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`))),
          timeoutMs,
        );
        const done = (f: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      }),
    exit: async (timeoutMs = 30_000) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`kubectl ${args.join(" ")} still running after ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`)), timeoutMs);
      });
      try {
        await Promise.race([closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
      return exitCode;
    },
    stop: async () => {
      if (!isClosed) child.kill("SIGTERM");
      await closed;
    },
  };
}

export interface BoundOptions {
  input?: string;
  version?: KubectlVersion;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** kubectl bound to one kubeconfig, with the latest version unless a call names another. */
export interface Kubectl {
  kubeconfig: string;
  run(args: string[], opts?: BoundOptions): Promise<KubectlResult>;
  /** Rejects unless kubectl exits 0; returns stdout. */
  ok(args: string[], opts?: BoundOptions): Promise<string>;
  /** Runs with `-o json` appended and parses stdout. */
  json<T = Record<string, unknown>>(args: string[], opts?: BoundOptions): Promise<T>;
  stream(args: string[], opts?: BoundOptions): KubectlStream;
}

export function kubectlFor(kubeconfig: string, defaultVersion: KubectlVersion = latestKubectl): Kubectl {
  const optsOf = (o: BoundOptions = {}): KubectlOptions => {
    const opts: KubectlOptions = { kubeconfig };
    if (o.input !== undefined) opts.input = o.input;
    if (o.env) opts.env = o.env;
    if (o.timeoutMs !== undefined) opts.timeoutMs = o.timeoutMs;
    return opts;
  };
  const v = (o?: BoundOptions): KubectlVersion => o?.version ?? defaultVersion;
  return {
    kubeconfig,
    run: (args, o) => kubectl(v(o), args, optsOf(o)),
    ok: (args, o) => kubectlOk(v(o), args, optsOf(o)),
    json: async <T>(args: string[], o?: BoundOptions) => JSON.parse(await kubectlOk(v(o), [...args, "-o", "json"], optsOf(o))) as T,
    stream: (args, o) => kubectlStream(v(o), args, optsOf(o)),
  };
}
