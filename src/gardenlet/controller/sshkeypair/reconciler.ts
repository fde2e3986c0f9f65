// The gardenlet's `sshkeypair` controller (docs/maintenance-and-rotation.md): for a Shoot of this seed
// with SSH access it ensures the seed key pair `ssh-keypair`, rotates it when a rotation was started
// (the previous pair becomes `ssh-keypair.old`), validates both pairs, writes the garden copies and
// every pool's OSC Secret in the shoot (seedpairs.ts), starts a requested rotation once every node runs the latest
// configuration (the prerequisite gate) and completes it once every node reports the new one. With
// SSH access disabled it removes key pairs, copies and the `gardener-user` part.
import type { Logger } from "pino";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { SSH_ROTATION_OPERATIONS, rotationInProgress, rotationRequestStarted, rotationRequested, sshKeypairRotation } from "../../../api/gardencore/rotation.ts";
import { isSSHAccessEnabled, technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { OSC_NAMESPACE } from "../../../api/gardencore/osc.ts";
import { Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { isConflict } from "../../../apimachinery/errors.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { type CompletionDeps, DirectCompletion, sameDesired, waitingFor } from "./completion.ts";
import { type KeyGenerator, generateRSAKeyPair } from "./keypair.ts";
import { KeyPool } from "./keypool.ts";
import { keyWorker } from "./keyworker.ts";
import { type NodesState, nodesState, waitingMessage } from "./nodes.ts";
import { syncOSCAccess } from "./oscaccess.ts";
import { type PoolOSC, desiredOSCSecrets, syncOSCSecrets } from "./oscsecrets.ts";
import { SECRET_CURRENT, SECRET_OLD, deleteIgnoringNotFound, gardenCopyName, unixSecondsLabel } from "./secrets.ts";
import { type SeedPairs, ensureSeedPairs, settleAll, writeGardenCopies } from "./seedpairs.ts";
import { Nodes, ShootWatches } from "./shootwatch.ts";
import { clearRotation, completeRotation, removeConstraint, removeOperations, setWaitingConstraint, startRotation } from "./status.ts";

/** How long to wait before trying again when the shoot's API server cannot be reached yet. */
export const SHOOT_CLIENT_RETRY_MS = 5000;

/** Clients of the shoots' API servers; the landscape (or a real gardenlet's kubeconfig secrets) provides them. */
export interface ShootClients {
  /** A client of the shoot's API server, or undefined while there is none yet (the pass is retried). */
  clientFor(shoot: ObjectKey): Promise<Client | undefined> | Client | undefined;
}

/** ShootClients from a fixed map `namespace/name` -> Client. */
export function staticShootClients(clients: Map<string, Client>): ShootClients {
  return { clientFor: (key) => clients.get(`${key.namespace}/${key.name}`) };
}

export interface SSHKeypairReconcilerDeps {
  gardenClient: Client;
  seedClient: Client;
  shootClients: ShootClients;
  clock: Clock;
  /** Where shoot-side events (Nodes, OSC Secrets) go: the controller's queue. */
  enqueue: (key: ObjectKey) => void;
  /** Default: RSA 4096 from a pool generated ahead (keypool.ts). */
  generateKeyPair?: KeyGenerator;
  /** Pairs the default pool holds; default KEY_POOL_SIZE. */
  keyPoolSize?: number;
  /** The default pool's level changes (keypool.ts onLevel), e.g. for a gauge. */
  onKeyPoolLevel?: (available: number, size: number) => void;
  /** How a direct completion reads the Shoot (completion.ts); default a live read. */
  readShoot?: CompletionDeps["readShoot"];
  logger?: Logger;
}

const initiationLabel = (shoot: Shoot): string => unixSecondsLabel(sshKeypairRotation(shoot)?.lastInitiationTime);

export class SSHKeypairReconciler implements Reconciler {
  private readonly generate: KeyGenerator;
  private readonly stopKeys: () => Promise<void>;
  readonly watches: ShootWatches;
  readonly completion: DirectCompletion;
  /** The default key pool; undefined with generateKeyPair. */
  readonly keyPool: KeyPool | undefined;

  constructor(private readonly d: SSHKeypairReconcilerDeps) {
    if (d.generateKeyPair) {
      this.generate = d.generateKeyPair;
      this.stopKeys = () => Promise.resolve();
      this.keyPool = undefined;
    } else {
      const worker = keyWorker();
      const pool = new KeyPool({ background: () => worker.generate(), urgent: () => generateRSAKeyPair(), clock: d.clock, ...(d.keyPoolSize ? { size: d.keyPoolSize } : {}), ...(d.logger ? { logger: d.logger } : {}), ...(d.onKeyPoolLevel ? { onLevel: d.onKeyPoolLevel } : {}) });
      this.keyPool = pool;
      this.generate = pool.generator();
      this.stopKeys = () => {
        pool.stop();
        return worker.stop();
      };
    }
    this.completion = new DirectCompletion({ gardenClient: d.gardenClient, clock: d.clock, enqueue: d.enqueue, ...(d.readShoot ? { readShoot: d.readShoot } : {}), ...(d.logger ? { logger: d.logger } : {}) });
    this.watches = new ShootWatches({ enqueue: d.enqueue, nodeChanged: (key, cache) => this.completion.nodeChanged(key, cache), clock: d.clock });
  }

  /** Stops the shoot watches, direct completions and key generation. */
  async stop(): Promise<void> {
    await Promise.all([this.watches.stopAll(), this.completion.stop(), this.stopKeys()]);
  }

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    // Live, not cached: the pass decides on the annotation and the rotation status it just wrote.
    // A waiting record stays while this pass computes the same desired OSCs (completion.ts).
    let shoot = await unlessNotFound(this.d.gardenClient.get(Shoots, req, { signal: rc.signal }));
    if (!shoot || shoot.metadata.deletionTimestamp) {
      this.completion.set(req, undefined);
      await this.watches.stop(req);
      return;
    }
    const seedNamespace = technicalIDOf(shoot);
    if (!seedNamespace) throw new Error(`shoot ${req.namespace}/${req.name} has no status.technicalID yet`);
    const shootClient = await this.d.shootClients.clientFor(req);
    const shootCache = shootClient ? this.watches.ensure(req, shootClient) : undefined;
    if (!isSSHAccessEnabled(shoot)) {
      this.completion.set(req, undefined);
      return this.disabled(shoot, seedNamespace, shootClient, rc);
    }

    // At most two rounds: the second carries out a rotation the first one started, with the seed
    // Secrets as the first one read them.
    let seed: SeedPairs | undefined;
    for (let round = 0; round < 2; round++) {
      seed = await ensureSeedPairs({ seed: this.d.seedClient, generate: this.generate, log: rc.log, signal: rc.signal }, seedNamespace, initiationLabel(shoot), seed);
      if (!shootClient || !shootCache) {
        await writeGardenCopies(this.d.gardenClient, shoot, seed, rc.log, rc.signal);
        this.completion.set(req, undefined);
        rc.log.info("no client for the shoot's API server yet; node configuration follows later");
        return { requeueAfterMs: SHOOT_CLIENT_RETRY_MS };
      }
      const keys = seed.pairs.map((k) => k.publicKey);
      let desired = desiredOSCSecrets(shoot, keys);
      let nodes = nodesState(await shootCache.list(Nodes, {}, rc.signal), desired);
      // A rotation that starts now needs no sync first: every node reports what the OSC Secrets hold
      // (the gate), and the next round writes everything anew.
      const starts = !rotationInProgress(shoot) && rotationRequested(shoot) && !rotationRequestStarted(shoot) && nodes.upToDate === nodes.total;
      if (!starts) {
        // The garden copies (for gardenctl) are written while the nodes get theirs: nodes accept the
        // previous key too, so the current copy works before and after.
        [desired] = await settleAll([this.syncOSC(req, shoot, shootClient, shootCache, keys, rc), writeGardenCopies(this.d.gardenClient, shoot, seed, rc.log, rc.signal)] as const);
        nodes = nodesState(await shootCache.list(Nodes, {}, rc.signal), desired);
      }
      const upToDate = nodes.upToDate === nodes.total;
      if (!rotationInProgress(shoot)) this.completion.set(req, undefined);
      else if (upToDate) {
        // A node's report may have completed it directly meanwhile: then the Shoot says so.
        if (await this.completion.take(req)) shoot = await this.d.gardenClient.get(Shoots, req, { signal: rc.signal });
        if (rotationInProgress(shoot)) shoot = await this.complete(req, shoot, nodes.total, rc);
      } else {
        rc.log.info({ upToDate: nodes.upToDate, nodes: nodes.total, outstanding: nodes.errors }, "SSH key pair rotation waits for nodes");
        this.completion.set(req, waitingFor(shoot, desired));
      }
      if (!rotationRequested(shoot)) {
        await removeConstraint(this.d.gardenClient, shoot, rc.signal);
        return;
      }
      if (rotationRequestStarted(shoot)) {
        // Started by an earlier pass that ended before consuming it (a killed gardenlet): consume it
        // now; this round already carried the rotation out.
        rc.log.info({ lastInitiationTime: sshKeypairRotation(shoot)?.lastInitiationTime }, "SSH key pair rotation request was already started; consuming it");
        await removeOperations(this.d.gardenClient, shoot, SSH_ROTATION_OPERATIONS, rc.signal);
        return;
      }
      if (rotationInProgress(shoot) || !upToDate) {
        await setWaitingConstraint(this.d.gardenClient, shoot, waitingMessage(nodes), this.d.clock.nowMs(), rc.signal);
        return;
      }
      // The gate is met: status first, then the request is consumed.
      shoot = await startRotation(this.d.gardenClient, shoot, this.d.clock.nowMs(), rc.signal);
      rc.log.info({ lastInitiationTime: sshKeypairRotation(shoot)?.lastInitiationTime }, "SSH key pair rotation started");
      shoot = await removeOperations(this.d.gardenClient, shoot, SSH_ROTATION_OPERATIONS, rc.signal);
    }
  }

  /**
   * Writes lastCompletionTime. A conflict because a node's report completed the rotation directly
   * (its write came first) is no failure: the Shoot read again says so.
   */
  private async complete(req: ObjectKey, shoot: Shoot, nodes: number, rc: ReconcileContext): Promise<Shoot> {
    try {
      const done = await completeRotation(this.d.gardenClient, shoot, this.d.clock.nowMs(), rc.signal);
      rc.log.info({ nodes, lastCompletionTime: sshKeypairRotation(done)?.lastCompletionTime }, "SSH key pair rotation completed");
      return done;
    } catch (err) {
      if (!isConflict(err)) throw err;
      const fresh = await this.d.gardenClient.get(Shoots, req, { signal: rc.signal });
      if (rotationInProgress(fresh) || sshKeypairRotation(fresh)?.lastInitiationTime !== sshKeypairRotation(shoot)?.lastInitiationTime) throw err;
      return fresh;
    }
  }

  /** The OSC Secrets (the shoot's cache saves the reads of those already up to date) and the nodes' access to them, at once. */
  private async syncOSC(req: ObjectKey, shoot: Shoot, shootClient: Client, shootCache: Cache, keys: string[] | undefined, rc: ReconcileContext): Promise<PoolOSC[]> {
    const desired = desiredOSCSecrets(shoot, keys);
    // Before the nodes can see a changed configuration, a record of the previous one is gone.
    this.completion.keepIf(req, (w) => sameDesired(w, desired));
    const cached = await shootCache.list(Secrets, { namespace: OSC_NAMESPACE }, rc.signal);
    // Nodes read exactly these Secrets (docs/node-bootstrap.md#osc-secrets); deleted ones drop out of the Role.
    const [synced, access] = await settleAll([syncOSCSecrets(shootClient, desired, rc.signal, cached), syncOSCAccess(shootClient, desired.map((d) => d.secretName), rc.signal)] as const);
    if (synced.written.length || synced.deleted.length) rc.log.info({ written: synced.written, deleted: synced.deleted, sshAccess: keys !== undefined }, "operating system configs updated");
    if (access) rc.log.info({ secrets: desired.map((d) => d.secretName) }, "node access to operating system configs updated");
    return desired;
  }

  /** docs/maintenance-and-rotation.md#ssh-access-off: key pairs, copies, constraint and the `gardener-user` part gone; rotation status cleared once the nodes follow. */
  private async disabled(shoot: Shoot, namespace: string, shootClient: Client | undefined, rc: ReconcileContext): Promise<Result | void> {
    const gardenNamespace = shoot.metadata.namespace;
    const name = shoot.metadata.name ?? "";
    const targets: [Client, ObjectKey][] = [
      [this.d.seedClient, { namespace, name: SECRET_CURRENT }],
      [this.d.seedClient, { namespace, name: SECRET_OLD }],
      [this.d.gardenClient, { namespace: gardenNamespace, name: gardenCopyName(name, SECRET_CURRENT) }],
      [this.d.gardenClient, { namespace: gardenNamespace, name: gardenCopyName(name, SECRET_OLD) }],
    ];
    for (const [client, key] of targets) {
      if (await deleteIgnoringNotFound(client, key, rc.signal)) rc.log.info({ secret: `${key.namespace}/${key.name}` }, "SSH access disabled: key pair secret deleted");
    }
    let current = await removeConstraint(this.d.gardenClient, shoot, rc.signal);
    // A credentials rotation no longer concerns SSH; nothing else here consumes it.
    current = await removeOperations(this.d.gardenClient, current, SSH_ROTATION_OPERATIONS, rc.signal);
    if (!shootClient) return { requeueAfterMs: SHOOT_CLIENT_RETRY_MS };
    const cache = this.watches.ensure({ namespace: gardenNamespace, name }, shootClient);
    const desired = await this.syncOSC({ namespace: gardenNamespace, name }, current, shootClient, cache, undefined, rc);
    const nodes: NodesState = nodesState(await cache.list(Nodes, {}, rc.signal), desired);
    if (nodes.upToDate === nodes.total) await clearRotation(this.d.gardenClient, current, rc.signal);
  }
}
