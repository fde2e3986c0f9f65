// Starts a real etcd (Debian's /usr/bin/etcd) on loopback for tests and benchmarks: one member
// (startEtcd) or an N-member cluster (startEtcdCluster, docs/high-availability.md). Every member is
// named gardener-access-etcd-<client port>, so a leaked process can be found by name.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

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
  /** Sends `signal` (e.g. SIGKILL, to simulate a crash) and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
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
  const clientPort = options.clientPort ?? (await freePort());
  const peerPort = options.peerPort ?? (await freePort());
  const member = memberOf(clientPort, peerPort);
  return startMember(options, member, `${member.name}=${member.peerUrl}`, "new", true);
}

interface Member {
  name: string;
  clientUrl: string;
  peerUrl: string;
}

function memberOf(clientPort: number, peerPort: number): Member {
  return {
    name: `gardener-access-etcd-${clientPort}`,
    clientUrl: `http://127.0.0.1:${clientPort}`,
    peerUrl: `http://127.0.0.1:${peerPort}`,
  };
}

/** Spawns one member; waits for its /health when `waitReady` (a cluster member waits for its quorum instead). */
async function startMember(
  options: Omit<StartEtcdOptions, "clientPort" | "peerPort">,
  member: Member,
  initialCluster: string,
  state: "new" | "existing",
  waitReady: boolean,
): Promise<RunningEtcd> {
  const binary = options.binary ?? ETCD_BINARY;
  if (!etcdAvailable(binary)) {
    throw new Error(`${binary} is missing: run \`npm run setup\` (installs Debian's etcd-server)`);
  }
  mkdirSync(options.dataDir, { recursive: true });
  const { name, clientUrl, peerUrl } = member;
  const child = spawn(
    binary,
    [
      `--name=${name}`,
      `--data-dir=${options.dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-state=${state}`,
      "--initial-cluster-token=gardener-access-etcd",
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

  const kill = async (signal: NodeJS.Signals): Promise<void> => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };

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

  if (!waitReady) return { endpoint: clientUrl, pid: child.pid ?? 0, name, stop, kill: (sig) => kill(sig) };
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
  return { endpoint: clientUrl, pid: child.pid ?? 0, name, stop, kill: (sig) => kill(sig) };
}

export interface StartEtcdClusterOptions {
  /** Parent directory; member i keeps its data in <dataDir>/<member name>. */
  dataDir: string;
  /** Number of members (default 3). */
  members?: number;
  /** How long to wait for every member to report healthy (quorum reached), in ms (default 30000). */
  startTimeoutMs?: number;
  binary?: string;
}

export interface RunningEtcdCluster {
  /** Client URLs of all members, in member order (what --etcd-servers takes, comma-separated). */
  endpoints: string[];
  members: RunningEtcd[];
  /** Starts member i again (after kill or stop) on its data dir and ports, and waits for it to be healthy; replaces members[i]. */
  restartMember(i: number): Promise<RunningEtcd>;
  /** Stops every member that still runs. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts an N-member etcd cluster on loopback (one process per member, each with its own client
 * and peer port) and waits until every member reports healthy, which needs a quorum and a leader.
 */
export async function startEtcdCluster(options: StartEtcdClusterOptions): Promise<RunningEtcdCluster> {
  const count = options.members ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 9) throw new Error(`an etcd cluster has 1 to 9 members, not ${count}`);
  const members: Member[] = [];
  for (let i = 0; i < count; i++) members.push(memberOf(await freePort(), await freePort()));
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(",");
  const running: RunningEtcd[] = [];
  const stopAll = async () => {
    await Promise.all(running.map((r) => r.stop()));
  };
  try {
    for (const m of members) {
      const memberOptions = { ...options, dataDir: join(options.dataDir, m.name) };
      running.push(await startMember(memberOptions, m, initialCluster, "new", false));
    }
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    await Promise.all(members.map((m) => waitHealthy(m.clientUrl, timeoutMs)));
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  const restartMember = async (i: number): Promise<RunningEtcd> => {
    const m = members[i];
    if (!m || stopping) throw new Error(`no etcd member ${i} to restart`);
    await running[i]!.stop();
    // Its data dir holds the membership: the initial-cluster flags are ignored.
    const memberOptions = { ...options, dataDir: join(options.dataDir, m.name) };
    running[i] = await startMember(memberOptions, m, initialCluster, "existing", true);
    return running[i]!;
  };
  return { endpoints: members.map((m) => m.clientUrl), members: running, restartMember, stop: () => (stopping ??= stopAll()) };
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
