// The whole bastion control plane in one process for integration tests and the benchmark: a garden
// API server (--enable-gardener-apis, Seed and RBAC authorization) and a seed API server with the
// extension CRDs, the real gardener-controller-manager and gardenlet (as seed `a`, with its seed
// identity), and a provider running the extension library's generic reconciler with the
// TestActuator. The controller manager and the garden API server share a FakeClock (object
// timestamps, Bastion heartbeats and expirations, table "now"); gardenlet, provider and seed run
// on real time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import { SEEDS_GROUP, type Project, type Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../src/apis/operations/v1alpha1/types.ts";
import { issueClientCertificate } from "../../../src/apiserver/certs/issue.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { ensurePki } from "../../../src/apiserver/certs/pki.ts";
import { readExtensionCRDs } from "../../../src/api/extensions/crds.ts";
import { seedUserName } from "../../../src/api/gardencore/identity.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { type ResourceType, resourceType } from "../../../src/client/resource.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { type ControllerManager, createControllerManager } from "../../../src/controllermanager/app.ts";
import { Bastions, Projects, Shoots } from "../../../src/client/garden.ts";
import { addBastionController } from "../../../src/extensions/controller/bastion/add.ts";
import { Clusters, ExtensionBastions } from "../../../src/extensions/resources.ts";
import { type Gardenlet, createGardenlet } from "../../../src/gardenlet/app.ts";
import { FakeClock, realClock } from "../../../src/utils/clock.ts";
import { startApiServerProcess } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";
import { TestActuator } from "./actuator.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";

export const SEED = "a";
export const PROJECT = "p";
export const PROJECT_NS = "garden-p";
/** An OpenSSH ed25519 public key (valid, so admission and validation accept it). */
export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK operator@example";
export const SHOOT_REFERENCE_NODES = "10.250.0.0/16";

const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });
const Seeds = resourceType({ group: "core.gardener.cloud", version: "v1beta1", kind: "Seed", plural: "seeds", namespaced: false });

export interface LandscapeOptions {
  maxLifetimeMs?: number;
  /** Members of project `p` besides its owner `alice` (default: bob viewer, carol admin). */
  members?: NonNullable<Project["spec"]>["members"];
  /** Log level of the controllers (env BASTION_LOG_LEVEL, default silent). */
  logLevel?: string;
  /** Concurrent reconciles of the provider's bastion controller (default 5). */
  workers?: number;
  /** Start the controller manager and gardenlet in-process (default true; false: a test runs the commands). */
  controllers?: boolean;
  /** Run the seed API server as a child process (the real binary), e.g. to give it its own core. Default in-process. */
  seedProcess?: boolean;
}

export interface Landscape {
  dir: string;
  clock: FakeClock;
  garden: { url: string; caPem: string; adminKubeconfigPath: string; ca: { certPem: string; keyPem: string } };
  seed: { adminKubeconfigPath: string };
  /** system:masters clients. */
  gardenAdmin: Client;
  seedAdmin: Client;
  /** Created but not started with `controllers: false`. */
  gcm: ControllerManager;
  gardenlet: Gardenlet;
  provider: Manager;
  actuator: TestActuator;
  /** A garden kubeconfig for a user with a client certificate (CN user, O groups). */
  kubeconfigFor(user: string, groups?: string[]): Promise<string>;
  clientFor(user: string, groups?: string[]): Promise<Client>;
  stop(): Promise<void>;
}

/** Starts servers, then the controllers; creates Seed `a` and project `p` (owner alice). */
export async function startLandscape(o: LandscapeOptions = {}): Promise<Landscape> {
  const dir = mkdtempSync(join(tmpdir(), "bastion-it-"));
  const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
  const logger = pino({ level: o.logLevel ?? process.env.BASTION_LOG_LEVEL ?? "silent" });
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const garden = await startGardenServer(join(dir, "garden"), clock);
    cleanups.push(() => garden.stop());
    const seed = await startSeedServer(join(dir, "seed"), o.seedProcess ?? false);
    cleanups.push(() => seed.stop());

    const gardenAdmin = Client.fromKubeconfigFile(garden.adminKubeconfigPath, { fieldManager: "test" });
    const seedAdmin = Client.fromKubeconfigFile(seed.adminKubeconfigPath, { fieldManager: "test" });
    cleanups.push(() => (gardenAdmin.close(), seedAdmin.close()));
    for (const crd of readExtensionCRDs()) await seedAdmin.create(CRDs, crd);
    await eventually("extension CRDs served", async () => {
      await seedAdmin.list(ExtensionBastions, { limit: 1 });
      await seedAdmin.list(Clusters, { limit: 1 });
      return true;
    });

    const kubeconfigFor = async (user: string, groups: string[] = []): Promise<string> => {
      const cert = await issueClientCertificate(garden.ca, { commonName: user, organizations: groups });
      const path = join(dir, `garden-${user.replace(/[^a-zA-Z0-9-]/g, "_")}.kubeconfig`);
      await writeKubeconfig(path, { server: garden.url, caPem: garden.caPem, clusterName: "garden", userName: user, user: cert });
      return path;
    };
    const clientFor = async (user: string, groups?: string[]): Promise<Client> => {
      const c = Client.fromKubeconfigFile(await kubeconfigFor(user, groups), { fieldManager: user });
      cleanups.push(() => c.close());
      return c;
    };

    await gardenAdmin.create(Seeds, { metadata: { name: SEED } });
    await gardenAdmin.create(Seeds, { metadata: { name: "b" } });
    const members = o.members ?? [
      { kind: "User", name: "bob", role: "viewer" },
      { kind: "User", name: "carol", role: "admin" },
    ];
    await gardenAdmin.create(Projects, {
      metadata: { name: PROJECT },
      spec: { namespace: PROJECT_NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }, members },
    });

    const workers = o.workers ?? 5;
    const inProcess = o.controllers ?? true;
    const gcm = createControllerManager({ gardenClient: gardenAdmin, bastionMaxLifetimeMs: o.maxLifetimeMs, clock, cacheClock: realClock, logger: logger.child({ component: "gcm" }), server: false, defaultMetrics: false });
    cleanups.push(() => gcm.stop());
    const gardenletGarden = await clientFor(seedUserName(SEED), [SEEDS_GROUP]);
    const seedClient = Client.fromKubeconfigFile(seed.adminKubeconfigPath, { fieldManager: "gardenlet" });
    cleanups.push(() => seedClient.close());
    const gardenlet = createGardenlet({ gardenClient: gardenletGarden, seedClient, seedName: SEED, logger: logger.child({ component: "gardenlet" }), server: false, defaultMetrics: false });
    cleanups.push(() => gardenlet.stop());
    const providerClient = Client.fromKubeconfigFile(seed.adminKubeconfigPath, { fieldManager: "provider-test" });
    cleanups.push(() => providerClient.close());
    const provider = new Manager({ client: providerClient, logger: logger.child({ component: "provider" }), server: false, defaultMetrics: false });
    const actuator = new TestActuator(providerClient);
    addBastionController(provider, { type: "local", actuator, maxConcurrentReconciles: workers });
    cleanups.push(() => provider.stop());
    await Promise.all(inProcess ? [gcm.start(), gardenlet.start(), provider.start()] : [provider.start()]);
    if (inProcess) await eventually("project namespace", async () => ((await gardenAdmin.get(Namespaces, { name: PROJECT_NS })) ? true : undefined));

    return { dir, clock, garden, seed, gardenAdmin, seedAdmin, gcm, gardenlet, provider, actuator, kubeconfigFor, clientFor, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The garden: the real server with --enable-gardener-apis and the Seed authorizer, on the test's
 * FakeClock (object timestamps, Bastion heartbeats and the "now" of tables follow it).
 */
async function startGardenServer(dataDir: string, clock: FakeClock) {
  const { server: s, options, stop } = await startInProcessApiServer({ dataDir, flags: ["--enable-gardener-apis", "--authorization-mode", "Seed,RBAC"], clock, ...(process.env.GARDEN_LOG_LEVEL ? { logLevel: process.env.GARDEN_LOG_LEVEL } : {}) });
  const pki = await ensurePki(options.certDir);
  return { url: s.url, caPem: s.caPem, adminKubeconfigPath: s.adminKubeconfigPath, ca: { certPem: pki.ca.certPem, keyPem: pki.ca.keyPem }, stop };
}

async function startSeedServer(dataDir: string, asProcess: boolean): Promise<{ adminKubeconfigPath: string; stop(): Promise<void> }> {
  if (asProcess) {
    const p = await startApiServerProcess({ storage: "sqlite", dataDir, extraArgs: ["--etcd-compaction-interval", "0s", "--log-level", "warn"] });
    return { adminKubeconfigPath: p.kubeconfig, stop: () => p.stop() };
  }
  const { server, stop } = await startInProcessApiServer({ dataDir });
  return { adminKubeconfigPath: server.adminKubeconfigPath, stop };
}

export function technicalID(shoot: string): string {
  return `shoot--${PROJECT}--${shoot}`;
}

export interface ShootOptions {
  seed?: string;
  hibernated?: boolean;
  sshAccess?: boolean;
  finalizers?: string[];
}

/** Creates Shoot `name` in project p (scheduled to seed a), its technicalID, control-plane namespace and Cluster. */
export async function createShoot(ls: Landscape, name: string, o: ShootOptions = {}): Promise<Shoot> {
  const shoot: Shoot = {
    metadata: { name, namespace: PROJECT_NS, ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
    spec: {
      seedName: o.seed ?? SEED,
      provider: { type: "local", workers: [{ name: "worker", minimum: 1, maximum: 2 }], ...(o.sshAccess === false ? { workersSettings: { sshAccess: { enabled: false } } } : {}) },
      networking: { nodes: SHOOT_REFERENCE_NODES },
      ...(o.hibernated ? { hibernation: { enabled: true } } : {}),
    },
  };
  await ls.gardenAdmin.create(Shoots, shoot);
  const id = technicalID(name);
  const stored = await ls.gardenAdmin.patchStatus(Shoots, { namespace: PROJECT_NS, name }, { type: "merge", body: { status: { technicalID: id } } });
  await ls.seedAdmin.create(Namespaces, { metadata: { name: id } });
  await ls.seedAdmin.create(Clusters, { metadata: { name: id }, spec: { cloudProfile: {}, seed: { metadata: { name: o.seed ?? SEED } }, shoot: stored } });
  return stored;
}

export function bastionFor(shoot: string, name: string, cidrs: string[] = ["203.0.113.0/24"]): Bastion {
  return { metadata: { name, namespace: PROJECT_NS }, spec: { shootRef: { name: shoot }, sshPublicKey: SSH_KEY, ingress: cidrs.map((cidr) => ({ ipBlock: { cidr } })) } };
}

export function getOrUndefined<T extends Bastion | Shoot>(client: Client, type: ResourceType<T>, name: string): Promise<T | undefined> {
  return unlessNotFound(client.get(type, { namespace: PROJECT_NS, name }));
}

export function extensionOf(ls: Landscape, shoot: string, name: string) {
  return unlessNotFound(ls.seedAdmin.get(ExtensionBastions, { namespace: technicalID(shoot), name }));
}

/** Resolves with the garden Bastion once BastionReady is True for its current generation. */
export function ready(ls: Landscape, name: string, timeoutMs = 15_000): Promise<Bastion> {
  return eventually(
    `bastion ${name} ready`,
    async () => {
      const b = await getOrUndefined<Bastion>(ls.gardenAdmin, Bastions, name);
      const c = b?.status?.conditions?.find((x) => x.type === "BastionReady");
      return c?.status === "True" && b?.status?.observedGeneration === b?.metadata.generation ? b : undefined;
    },
    timeoutMs,
    20,
  );
}

/** Resolves once the garden Bastion and its extension Bastion are both gone. */
export function gone(ls: Landscape, shoot: string, name: string, timeoutMs = 15_000): Promise<true> {
  return eventually(
    `bastion ${name} and its extension gone`,
    async () => ((await getOrUndefined(ls.gardenAdmin, Bastions, name)) === undefined && (await extensionOf(ls, shoot, name)) === undefined ? true : undefined),
    timeoutMs,
    20,
  );
}
