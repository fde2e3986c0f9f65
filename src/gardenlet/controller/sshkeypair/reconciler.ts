// The gardenlet's `sshkeypair` controller (spec/ssh-keypair-rotation.md §7.2), without rotation yet:
// for a Shoot of this seed with SSH access it ensures the seed key pair `ssh-keypair`, validates the
// key pairs (§8.2), writes the garden copies (§3.3) and every pool's OSC Secret in the shoot (§8);
// with SSH access disabled it removes key pairs and copies and the `gardener-user` part (§10).
// Rotation (steps 4, 5 and 8) slots in between "ensure current" and "validate" without changing the rest.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { isSSHAccessEnabled, technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { isNotFound } from "../../../apimachinery/errors.ts";
import { type Secret, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import { Shoots } from "../../../client/garden.ts";
import { type KeyGenerator, type KeyPair, generateRSAKeyPair, keyPairOf, keyPairProblem } from "./keypair.ts";
import { desiredOSCSecrets, syncOSCSecrets } from "./oscsecrets.ts";
import { SECRET_CURRENT, SECRET_OLD, deleteIgnoringNotFound, gardenCopyName, getOrUndefined, seedSecret, unixSecondsLabel, writeGardenCopy } from "./secrets.ts";

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
  gardenCache: Cache;
  seedClient: Client;
  shootClients: ShootClients;
  /** Default RSA 4096 (R1). */
  generateKeyPair?: KeyGenerator;
}

/** `ssh key pair secret <namespace>/<name> is invalid: <reason>` (§8.2). */
export class InvalidKeyPairError extends Error {
  constructor(namespace: string, name: string, reason: string) {
    super(`ssh key pair secret ${namespace}/${name} is invalid: ${reason}`);
    this.name = "InvalidKeyPairError";
  }
}

function lastInitiationTime(shoot: Shoot): string | undefined {
  const rotation = (shoot.status?.credentials as { rotation?: { sshKeypair?: { lastInitiationTime?: string } } } | undefined)?.rotation;
  return rotation?.sshKeypair?.lastInitiationTime;
}

export class SSHKeypairReconciler implements Reconciler {
  private readonly generate: KeyGenerator;

  constructor(private readonly d: SSHKeypairReconcilerDeps) {
    this.generate = d.generateKeyPair ?? (() => generateRSAKeyPair());
  }

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    let shoot: Shoot;
    try {
      shoot = await this.d.gardenCache.get(Shoots, req, rc.signal);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (shoot.metadata.deletionTimestamp) return;
    const seedNamespace = technicalIDOf(shoot);
    if (!seedNamespace) throw new Error(`shoot ${req.namespace}/${req.name} has no status.technicalID yet`);

    const shootClient = await this.d.shootClients.clientFor(req);
    const sshAccess = isSSHAccessEnabled(shoot);
    const keys = sshAccess ? await this.ensureKeyPairs(shoot, seedNamespace, rc) : await this.removeKeyPairs(shoot, seedNamespace, rc);
    if (!shootClient) {
      rc.log.info("no client for the shoot's API server yet; node configuration follows later");
      return { requeueAfterMs: SHOOT_CLIENT_RETRY_MS };
    }
    const desired = desiredOSCSecrets(shoot, keys?.map((k) => k.publicKey));
    const synced = await syncOSCSecrets(shootClient, desired, rc.signal);
    if (synced.written.length || synced.deleted.length) rc.log.info({ written: synced.written, deleted: synced.deleted, sshAccess }, "operating system configs updated");
  }

  /** Steps 3 and 6: the current key pair (generated when missing), the old one if any, both valid, copied to the garden. */
  private async ensureKeyPairs(shoot: Shoot, namespace: string, rc: ReconcileContext): Promise<KeyPair[]> {
    const signal = rc.signal;
    let current = await getOrUndefined(this.d.seedClient, { namespace, name: SECRET_CURRENT }, signal);
    if (!current) {
      const pair = await this.generate();
      current = await this.d.seedClient.create(Secrets, seedSecret(namespace, SECRET_CURRENT, pair, unixSecondsLabel(lastInitiationTime(shoot))), { signal });
      rc.log.info({ secret: `${namespace}/${SECRET_CURRENT}` }, "generated the node key pair");
    }
    const old = await getOrUndefined(this.d.seedClient, { namespace, name: SECRET_OLD }, signal);
    const present: [string, Secret][] = [[SECRET_CURRENT, current]];
    if (old) present.push([SECRET_OLD, old]);

    const pairs = present.map(([name, secret]) => {
      const pair = keyPairOf(secret.data);
      const problem = keyPairProblem(pair);
      if (problem) throw new InvalidKeyPairError(namespace, name, problem);
      return pair;
    });
    for (const [name, secret] of present) {
      const result = await writeGardenCopy(this.d.gardenClient, shoot, gardenCopyName(shoot.metadata.name ?? "", name), secret.data ?? {}, signal);
      if (result !== "unchanged") rc.log.info({ secret: gardenCopyName(shoot.metadata.name ?? "", name), result }, "garden copy written");
    }
    return pairs;
  }

  /** §10: key pairs and copies gone; the caller renders the OSC without the `gardener-user` part. */
  private async removeKeyPairs(shoot: Shoot, namespace: string, rc: ReconcileContext): Promise<undefined> {
    const gardenNamespace = shoot.metadata.namespace;
    const targets: [Client, ObjectKey][] = [
      [this.d.seedClient, { namespace, name: SECRET_CURRENT }],
      [this.d.seedClient, { namespace, name: SECRET_OLD }],
      [this.d.gardenClient, { namespace: gardenNamespace, name: gardenCopyName(shoot.metadata.name ?? "", SECRET_CURRENT) }],
      [this.d.gardenClient, { namespace: gardenNamespace, name: gardenCopyName(shoot.metadata.name ?? "", SECRET_OLD) }],
    ];
    for (const [client, key] of targets) {
      if (await deleteIgnoringNotFound(client, key, rc.signal)) rc.log.info({ secret: `${key.namespace}/${key.name}` }, "SSH access disabled: key pair secret deleted");
    }
    return undefined;
  }
}
