// Starts a real, single-member etcd (Debian's /usr/bin/etcd) on loopback for tests and benchmarks.
// The member is named gardener-access-etcd-<client port>, so a leaked process can be found by name.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";

export const ETCD_BINARY = "/usr/bin/etcd";

export interface StartEtcdOptions {
  /** Data directory (created if missing). */
  dataDir: string;
  /** Client port; a free one when omitted. */
  clientPort?: number;
  /** Peer port; a free one when omitted. */
  peerPort?: number;
  /** How long to wait for etcd to answer, in ms (default 30000). */
  startTimeoutMs?: number;
  /** The etcd binary (default /usr/bin/etcd). */
  binary?: string;
}

export interface RunningEtcd {
  /** "http://127.0.0.1:<port>" */
  endpoint: string;
  pid: number;
  /** The --name the member runs with. */
  name: string;
  /** Kills etcd (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

export function etcdAvailable(binary = ETCD_BINARY): boolean {
  return existsSync(binary);
}

/** A port that was free a moment ago (bound to port 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("could not pick a free port"))));
    });
  });
}

export async function startEtcd(options: StartEtcdOptions): Promise<RunningEtcd> {
  const binary = options.binary ?? ETCD_BINARY;
  if (!etcdAvailable(binary)) {
    throw new Error(`${binary} is missing: run \`npm run setup\` (installs Debian's etcd-server)`);
  }
  mkdirSync(options.dataDir, { recursive: true });
  const clientPort = options.clientPort ?? (await freePort());
  const peerPort = options.peerPort ?? (await freePort());
  const name = `gardener-access-etcd-${clientPort}`;
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    binary,
    [
      `--name=${name}`,
      `--data-dir=${options.dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${name}=${peerUrl}`,
      "--initial-cluster-state=new",
      "--logger=zap",
      "--log-level=error",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const spawnFailed = new Promise<never>((_, reject) => child.once("error", reject));
  spawnFailed.catch(() => undefined);

  // If this process exits without stopping etcd (a crashed test run), take etcd down with it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener("exit", killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  try {
    await Promise.race([
      waitHealthy(clientUrl, options.startTimeoutMs ?? 30_000),
      spawnFailed,
      exited.then(() => {
        throw new Error(`etcd exited during startup (code ${child.exitCode}): ${stderr.trim()}`);
      }),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint: clientUrl, pid: child.pid ?? 0, name, stop };
}

/** Polls etcd's /health until it reports healthy. */
async function waitHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (res.ok && body.health === "true") return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${url} did not become healthy within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
