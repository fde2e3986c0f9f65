// Node SSH key pair rotation in one process: garden (with --enable-gardener-apis), seed and shoot API
// servers, the real controller manager (maintenance controller) and gardenlet (sshkeypair controller),
// and node agents whose machine roots are temp directories. Time: the garden API server and the
// controller manager run on a FakeClock the test moves (creation times, maintenance windows, requeues);
// the gardenlet reads that clock's time but waits in real time, so its retries need no stepping.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Projects, Shoots } from "../../../src/client/garden.ts";
import { resourceType } from "../../../src/client/resource.ts";
import type { Transport } from "../../../src/client/transport.ts";
import { type ControllerManager, createControllerManager } from "../../../src/controllermanager/app.ts";
import { type Gardenlet, createGardenlet } from "../../../src/gardenlet/app.ts";
import { type KeyGenerator, generateRSAKeyPair } from "../../../src/gardenlet/controller/sshkeypair/keypair.ts";
import { staticShootClients } from "../../../src/gardenlet/controller/sshkeypair/reconciler.ts";
import { type NodeAgent, createNodeAgent } from "../../../src/nodeagent/agent.ts";
import { RecordingSshd } from "../../../src/nodeagent/sshd.ts";
import { fixedUserManager } from "../../../src/nodeagent/users.ts";
import { type Clock, FakeClock, realClock } from "../../../src/utils/clock.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";

export const SEED = "a";
export const PROJECT_NS = "garden-p";
export const POOL = "worker";

const Seeds = resourceType({ group: "core.gardener.cloud", version: "v1beta1", kind: "Seed", plural: "seeds", namespaced: false });

/** The fake clock's time with real timers. */
function readingClock(fake: FakeClock): Clock {
  return { now: () => fake.now(), nowMs: () => fake.nowMs(), setTimer: (ms, fn) => realClock.setTimer(ms, fn), sleep: (ms, signal) => realClock.sleep(ms, signal) };
}

export interface Machine {
  name: string;
  root: string;
  agent: NodeAgent;
  sshd: RecordingSshd;
  /** `/home/gardener/.ssh/authorized_keys`, or undefined when there is none. */
  authorizedKeys(): string | undefined;
  stop(): Promise<void>;
}

export interface Landscape {
  clock: FakeClock;
  garden: Client;
  seed: Client;
  shoot: Client;
  gcm: ControllerManager;
  /** The running gardenlet (replaced by restartGardenlet). */
  gardenlet: Gardenlet;
  /** Starts (or restarts, on the same root) a node agent for Node `name` of the pool. */
  startMachine(name: string): Promise<Machine>;
  /** Stops the gardenlet and starts a new one (a restart), its garden transport optionally wrapped. */
  restartGardenlet(wrap?: (t: Transport) => Transport): Promise<void>;
  stop(): Promise<void>;
}

export interface LandscapeOptions {
  /** Start of the fake clock. */
  start: number;
  /** Shoot `namespace/name` served by the one shoot API server (default garden-p/s). */
  shoot?: string;
  /** Where in the next window the controller manager schedules a run; default 0 (at its begin). */
  maintenanceRandom?: () => number;
  /** RSA bits of generated node keys (default 2048: quicker than 4096, the same code). */
  keyBits?: number;
  /** Overrides keyBits (e.g. keys generated ahead, so a benchmark measures delivery only). */
  generateKeyPair?: KeyGenerator;
  /** Wraps the gardenlet's garden transport (e.g. to fail a chosen request, as a crash would). */
  gardenletTransport?: (t: Transport) => Transport;
}

export async function startLandscape(o: LandscapeOptions): Promise<Landscape> {
  const dir = mkdtempSync(join(tmpdir(), "rotation-it-"));
  const clock = new FakeClock(o.start);
  const logger = pino({ level: process.env.ROTATION_LOG_LEVEL ?? "silent" });
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const server = async (name: string, flags: string[], serverClock?: Clock): Promise<InProcessServer> => {
      const s = await startInProcessApiServer({ dataDir: join(dir, name), flags, ...(serverClock ? { clock: serverClock } : {}) });
      cleanups.push(() => s.stop());
      return s;
    };
    const gardenInProcess = await server("garden", ["--enable-gardener-apis"], clock);
    const seedInProcess = await server("seed", []);
    const shootInProcess = await server("shoot", []);
    const [gardenServer, seedServer, shootServer] = [gardenInProcess.server, seedInProcess.server, shootInProcess.server];
    const client = (path: string, fieldManager: string): Client => {
      const c = Client.fromKubeconfigFile(path, { fieldManager });
      cleanups.push(() => c.close());
      return c;
    };
    const [garden, seed, shoot] = [gardenInProcess.admin, seedInProcess.admin, shootInProcess.admin];
    await garden.create(Seeds, { metadata: { name: SEED } });

    const gcm = createControllerManager({ gardenClient: client(gardenServer.adminKubeconfigPath, "gcm"), clock, cacheClock: realClock, maintenanceRandom: o.maintenanceRandom ?? (() => 0), logger: logger.child({ component: "gcm" }), server: false, defaultMetrics: false });
    cleanups.push(() => gcm.stop());
    await garden.create(Projects, { metadata: { name: "p" }, spec: { namespace: PROJECT_NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" } } });
    await garden.create(Namespaces, { metadata: { name: PROJECT_NS } }).catch(() => undefined);

    const bits = o.keyBits ?? 2048;
    const newGardenlet = (wrap: (t: Transport) => Transport = (t) => t): Gardenlet => {
      const gardenClient = client(gardenServer.adminKubeconfigPath, "gardenlet");
      const g = createGardenlet({
        gardenClient: new Client(wrap(gardenClient.transport), { fieldManager: "gardenlet" }),
        seedClient: client(seedServer.adminKubeconfigPath, "gardenlet"),
        seedName: SEED,
        clock: readingClock(clock),
        shootClients: staticShootClients(new Map([[o.shoot ?? `${PROJECT_NS}/s`, client(shootServer.adminKubeconfigPath, "gardenlet")]])),
        generateKeyPair: o.generateKeyPair ?? (() => generateRSAKeyPair(bits)),
        logger: logger.child({ component: "gardenlet" }),
        server: false,
        defaultMetrics: false,
      });
      cleanups.push(() => g.stop());
      return g;
    };
    const ls: Landscape = {
      clock,
      garden,
      seed,
      shoot,
      gcm,
      gardenlet: newGardenlet(o.gardenletTransport),
      startMachine: (name) => startMachine(name),
      restartGardenlet: async (wrap) => {
        await ls.gardenlet.stop();
        ls.gardenlet = newGardenlet(wrap);
        await ls.gardenlet.start();
      },
      stop,
    };
    await Promise.all([gcm.start(), ls.gardenlet.start()]);

    const startMachine = async (name: string): Promise<Machine> => {
      const root = join(dir, `machine-${name}`);
      if (!existsSync(join(root, "etc/ssh/ssh_host_ed25519_key"))) {
        mkdirSync(join(root, "etc/ssh"), { recursive: true });
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `root@${name}`, "-f", join(root, "etc/ssh/ssh_host_ed25519_key")]);
      }
      const sshd = new RecordingSshd();
      const c = Client.fromKubeconfigFile(shootServer.adminKubeconfigPath, { fieldManager: "gardener-node-agent" });
      const agent = createNodeAgent({ client: c, nodeName: name, pool: POOL, root, users: fixedUserManager(), sshd, internalIP: "10.250.0.10", hostname: name, logger: logger.child({ component: "node-agent", node: name }), server: false, defaultMetrics: false });
      let stopped: Promise<void> | undefined;
      const stopMachine = (): Promise<void> => (stopped ??= agent.stop().finally(() => c.close()));
      cleanups.push(stopMachine);
      await agent.start();
      const path = join(root, "home/gardener/.ssh/authorized_keys");
      return { name, root, agent, sshd, authorizedKeys: () => (existsSync(path) ? readFileSync(path, "utf8") : undefined), stop: stopMachine };
    };
    return ls;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Shoot `name` with one pool, scheduled to seed a, with its technical ID and control-plane namespace. */
export async function createShoot(ls: Landscape, name: string, spec: Partial<Shoot["spec"]> = {}): Promise<Shoot> {
  await ls.garden.create(Shoots, {
    metadata: { name, namespace: PROJECT_NS },
    spec: { seedName: SEED, provider: { type: "local", workers: [{ name: POOL, minimum: 2, maximum: 2, machine: { type: "local" } }] }, kubernetes: { version: "1.31.1" }, ...spec },
  });
  const technicalID = `shoot--p--${name}`;
  await ls.seed.create(Namespaces, { metadata: { name: technicalID } });
  return ls.garden.patchStatus(Shoots, { namespace: PROJECT_NS, name }, { type: "merge", body: { status: { technicalID } } });
}
