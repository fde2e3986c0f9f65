// Garden, seed and shoot API servers in one process with the gardenlet's sshkeypair controller (the
// garden with --enable-gardener-apis), and node agents with their roots in temp directories.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Namespaces, type Secret, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import type { ObjectKey } from "../../../src/client/resource.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { Projects, Shoots } from "../../../src/client/garden.ts";
import { type Gardenlet, createGardenlet } from "../../../src/gardenlet/app.ts";
import { staticShootClients } from "../../../src/gardenlet/controller/sshkeypair/reconciler.ts";
import { type NodeAgent, createNodeAgent } from "../../../src/nodeagent/agent.ts";
import { RecordingSshd } from "../../../src/nodeagent/sshd.ts";
import { fixedUserManager } from "../../../src/nodeagent/users.ts";
import { FakeClock } from "../../../src/utils/clock.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";

export const SEED = "a";
export const PROJECT_NS = "garden-p";
export const SHOOT = "s";
export const TECHNICAL_ID = "shoot--p--s";
export const POOL = "worker";

const Seeds = resourceType({ group: "core.gardener.cloud", version: "v1beta1", kind: "Seed", plural: "seeds", namespaced: false });

export interface Landscape {
  dir: string;
  garden: Client;
  seed: Client;
  shoot: Client;
  gardenlet: Gardenlet;
  startAgent(name: string, o?: { clock?: FakeClock }): Promise<{ agent: NodeAgent; root: string; sshd: RecordingSshd }>;
  /** Takes the shoot's client away from the gardenlet (it leaves the OSC Secrets alone) until the returned function is called. */
  detachShoot(): () => void;
  stop(): Promise<void>;
}

export async function startLandscape(): Promise<Landscape> {
  const dir = mkdtempSync(join(tmpdir(), "nodeagent-it-"));
  const logger = pino({ level: process.env.NODEAGENT_LOG_LEVEL ?? "silent" });
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const inProcess = [
      await startInProcessApiServer({ dataDir: join(dir, "garden"), flags: ["--enable-gardener-apis"] }),
      await startInProcessApiServer({ dataDir: join(dir, "seed") }),
      await startInProcessApiServer({ dataDir: join(dir, "shoot") }),
    ];
    for (const s of inProcess) cleanups.push(() => s.stop());
    const servers = inProcess.map((s) => s.server);
    const [garden, seed, shoot] = inProcess.map((s) => s.admin) as [Client, Client, Client];

    await garden.create(Seeds, { metadata: { name: SEED } });
    await garden.create(Namespaces, { metadata: { name: PROJECT_NS } });
    await garden.create(Projects, { metadata: { name: "p" }, spec: { namespace: PROJECT_NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" } } });
    await seed.create(Namespaces, { metadata: { name: TECHNICAL_ID } });

    // The gardenlet's garden client is an admin here: the Seed authorizer has no rule for key pair secrets yet.
    const gardenletGarden = Client.fromKubeconfigFile(servers[0]!.adminKubeconfigPath, { fieldManager: "gardenlet" });
    const gardenletSeed = Client.fromKubeconfigFile(servers[1]!.adminKubeconfigPath, { fieldManager: "gardenlet" });
    const gardenletShoot = Client.fromKubeconfigFile(servers[2]!.adminKubeconfigPath, { fieldManager: "gardenlet" });
    cleanups.push(() => [gardenletGarden, gardenletSeed, gardenletShoot].forEach((c) => c.close()));
    const shootClients = new Map([[`${PROJECT_NS}/${SHOOT}`, gardenletShoot]]);
    const detachShoot = () => {
      shootClients.delete(`${PROJECT_NS}/${SHOOT}`);
      return () => void shootClients.set(`${PROJECT_NS}/${SHOOT}`, gardenletShoot);
    };
    const gardenlet = createGardenlet({
      gardenClient: gardenletGarden,
      seedClient: gardenletSeed,
      seedName: SEED,
      shootClients: staticShootClients(shootClients),
      logger: logger.child({ component: "gardenlet" }),
      server: false,
      defaultMetrics: false,
    });
    cleanups.push(() => gardenlet.stop());
    await gardenlet.start();

    const startAgent = async (name: string, o: { clock?: FakeClock } = {}) => {
      const root = join(dir, `machine-${name}`);
      mkdirSync(join(root, "etc/ssh"), { recursive: true });
      for (const type of ["ed25519", "ecdsa"]) execFileSync("ssh-keygen", ["-q", "-t", type, "-N", "", "-C", `root@${name}`, "-f", join(root, `etc/ssh/ssh_host_${type}_key`)]);
      const sshd = new RecordingSshd();
      const client = Client.fromKubeconfigFile(servers[2]!.adminKubeconfigPath, { fieldManager: "gardener-node-agent" });
      const agent = createNodeAgent({
        client,
        nodeName: name,
        pool: POOL,
        root,
        users: fixedUserManager(),
        sshd,
        internalIP: "10.250.0.10",
        hostname: name,
        clock: o.clock,
        logger: logger.child({ component: "node-agent" }),
        server: false,
        defaultMetrics: false,
      });
      cleanups.push(() => client.close());
      cleanups.push(() => agent.stop());
      await agent.start();
      return { agent, root, sshd };
    };
    return { dir, garden, seed, shoot, gardenlet, startAgent, detachShoot, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Creates the Shoot with one worker pool, scheduled to seed a, with its technical ID. */
export async function createShoot(ls: Landscape): Promise<Shoot> {
  await ls.garden.create(Shoots, {
    metadata: { name: SHOOT, namespace: PROJECT_NS },
    spec: { seedName: SEED, provider: { type: "local", workers: [{ name: POOL, minimum: 1, maximum: 2, machine: { type: "local" } }] }, kubernetes: { version: "1.31.1" } },
  });
  return ls.garden.patchStatus(Shoots, { namespace: PROJECT_NS, name: SHOOT }, { type: "merge", body: { status: { technicalID: TECHNICAL_ID } } });
}

export function secretOrUndefined(client: Client, key: ObjectKey): Promise<Secret | undefined> {
  return unlessNotFound(client.get(Secrets, key));
}

export function b64(s: string): string {
  return Buffer.from(s).toString("base64");
}

export function unb64(s: string | undefined): string {
  return Buffer.from(s ?? "", "base64").toString("utf8");
}
