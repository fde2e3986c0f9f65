// The gardenlet's bastion controller (docs/bastion.md#gardenlet-controller): replicates a garden Bastion of its seed
// into the shoot's control-plane namespace as an extension Bastion with the userData, reports the
// extension's progress back (BastionReady, ingress, host keys, mirrored conditions), and on
// deletion removes the extension Bastion before releasing finalizer `gardener`.
import {
  ANNOTATION_CONFIRMATION_FORCE_DELETION,
  ANNOTATION_OPERATION,
  ANNOTATION_TIMESTAMP,
  FINALIZER_GARDENER,
  OPERATION_RECONCILE,
  type Shoot,
} from "../../../apis/gardencore/v1beta1/types.ts";
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { type Bastion, CONDITION_BASTION_READY } from "../../../apis/operations/v1alpha1/types.ts";
import { isHibernated, isSSHAccessEnabled, technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { isAlreadyExists, isForbidden, isNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import { addFinalizer, hasFinalizer, removeFinalizer, unlessNotFound } from "../../../client/helpers.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import { ExtensionBastions } from "../../../extensions/resources.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import { namespaceFromClusters } from "./clusters.ts";
import { MESSAGE_DELETING, MESSAGE_RECONCILED, REASON_DELETING, REASON_FAILED, REASON_RECONCILED, type ReadyUpdate } from "./conditions.ts";
import { type DesiredSpec, desiredSpec, hostKeysOf, ingressPatch, type Observation, observe } from "./extension.ts";
import { rfc3339Nano } from "../../../utils/time.ts";
import { GardenStatusWriter } from "./status.ts";

export const RECONCILE_TIMEOUT_MS = 3 * 60 * 1000;
/** How often deletion looks again while the extension Bastion still exists (also at once on its delete event). */
export const DELETION_RECHECK_MS = 5000;

export interface BastionReconcilerDeps {
  gardenClient: Client;
  gardenCache: Cache;
  seedClient: Client;
  seedCache: Cache;
  clock: Clock;
  /** Events on the garden Bastion (`kubectl describe bastion`). */
  recorder?: EventRecorder;
}

/**
 * A Succeeded recorded for an older spec (the extension has not picked up the latest patch yet).
 * Only judged when the extension records observedGeneration, as the extension library does.
 */
function behind(ext: ExtensionBastion): boolean {
  const observed = ext.status?.observedGeneration;
  return observed !== undefined && ext.metadata.generation !== undefined && observed < ext.metadata.generation;
}

/** The reason of the Event when the extension Bastion is created or updated. */
export const EVENT_RECONCILING = "Reconciling";

function readyCondition(b: Bastion): { status?: string; reason?: string } | undefined {
  return b.status?.conditions?.find((c) => c.type === CONDITION_BASTION_READY);
}
type ExtensionKey = { namespace: string; name: string };

const isReady = (b: Bastion): boolean => readyCondition(b)?.status === "True";
const readyReason = (b: Bastion): string | undefined => readyCondition(b)?.reason;

export class BastionReconciler implements Reconciler {
  private readonly status: GardenStatusWriter;

  constructor(private readonly d: BastionReconcilerDeps) {
    this.status = new GardenStatusWriter(d.gardenClient, d.clock);
  }

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const signal = AbortSignal.any([rc.signal, AbortSignal.timeout(RECONCILE_TIMEOUT_MS)]);
    const bastion = await unlessNotFound(this.d.gardenCache.get(Bastions, req, signal));
    if (!bastion) return;
    if (bastion.metadata.deletionTimestamp) return this.delete(bastion, rc, signal);
    return this.reconcileBastion(bastion, rc, signal);
  }

  /** The Shoot from the cache of this seed's Shoots, else from the API server (the cache may lag). */
  private async getShoot(bastion: Bastion, signal: AbortSignal): Promise<Shoot | undefined> {
    const key = { namespace: bastion.metadata.namespace, name: bastion.spec.shootRef?.name ?? "" };
    if (!key.name) return undefined;
    return (await unlessNotFound(this.d.gardenCache.get(Shoots, key, signal))) ?? (await unlessNotFound(this.d.gardenClient.get(Shoots, key, { signal })));
  }

  private async reconcileBastion(bastion: Bastion, rc: ReconcileContext, signal: AbortSignal): Promise<Result | void> {
    const shoot = await this.getShoot(bastion, signal);
    if (!shoot) throw new Error(`could not get shoot ${bastion.metadata.namespace}/${bastion.spec.shootRef?.name}: not found`);
    if (shoot.metadata.deletionTimestamp || isHibernated(shoot) || !isSSHAccessEnabled(shoot)) {
      rc.log.info("shoot is in deletion, hibernated or has SSH access disabled; the controller manager deletes the bastion");
      return;
    }
    const seedNamespace = technicalIDOf(shoot);
    if (!seedNamespace) throw new Error(`shoot ${shoot.metadata.namespace}/${shoot.metadata.name} has no status.technicalID yet`);

    bastion = await addFinalizer(this.d.gardenClient, Bastions, bastion, FINALIZER_GARDENER, { signal });
    const desired = desiredSpec(bastion);
    const extKey = { namespace: seedNamespace, name: bastion.metadata.name ?? "" };
    const ext = await unlessNotFound(this.d.seedCache.get(ExtensionBastions, extKey, signal));
    const seen = observe(ext, desired);

    if (seen.observedError !== undefined) await this.reportExtensionError(bastion, seen, ext, extKey, rc);
    if (seen.mustCreate || seen.mustPatch) return this.writeExtension(bastion, extKey, desired, seen.mustCreate, ext, rc, signal);
    if (seen.observedError === undefined && ext?.status?.lastOperation?.state === "Succeeded" && !behind(ext)) {
      if (!isReady(bastion)) this.d.recorder?.event(bastion, "Normal", REASON_RECONCILED, MESSAGE_RECONCILED);
      await this.status.write(bastion, { status: "True", reason: REASON_RECONCILED, message: MESSAGE_RECONCILED }, ext, {
        ingress: ingressPatch(ext.status?.ingress),
        sshHostKeys: hostKeysOf(ext) ?? null,
        observedGeneration: bastion.metadata.generation ?? 0,
      });
      rc.log.info("bastion ready");
    }
  }

  /** The extension's error as a Warning event and BastionReady False (best effort: the reconcile goes on). */
  private async reportExtensionError(bastion: Bastion, seen: Observation, ext: ExtensionBastion | undefined, extKey: ExtensionKey, rc: ReconcileContext): Promise<void> {
    const message = `Error while waiting for Bastion ${extKey.namespace}/${extKey.name} to become ready: ${seen.observedError}`;
    this.d.recorder?.event(bastion, "Warning", REASON_FAILED, message);
    await this.status
      .write(bastion, { status: "False", reason: REASON_FAILED, message, ...(seen.observedCodes ? { codes: seen.observedCodes } : {}) }, ext)
      .catch((err: unknown) => rc.log.error({ err }, "could not report the extension's error on the bastion"));
  }

  /** ensureExtension with its events; a failure is reported on the Bastion and thrown (the request is retried). */
  private async writeExtension(bastion: Bastion, extKey: ExtensionKey, desired: DesiredSpec, create: boolean, ext: ExtensionBastion | undefined, rc: ReconcileContext, signal: AbortSignal): Promise<void> {
    try {
      await this.ensureExtension(extKey, desired, create, signal);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      this.d.recorder?.event(bastion, "Warning", REASON_FAILED, `failed to ensure bastion extension resource: ${text}`);
      await this.status.write(bastion, { status: "False", reason: REASON_FAILED, message: text }, ext).catch(() => undefined);
      throw new Error(`failed to ensure bastion extension resource: ${text}`, { cause: err });
    }
    rc.log.info({ extension: `${extKey.namespace}/${extKey.name}`, created: create }, "extension bastion written");
    this.d.recorder?.event(bastion, "Normal", EVENT_RECONCILING, `Extension Bastion ${extKey.namespace}/${extKey.name} ${create ? "created" : "updated"}`);
  }

  /** Creates the extension Bastion, or merge-patches it to the desired spec; both ask the extension to reconcile. */
  private async ensureExtension(key: ExtensionKey, desired: DesiredSpec, create: boolean, signal: AbortSignal): Promise<void> {
    const annotations = { [ANNOTATION_OPERATION]: OPERATION_RECONCILE, [ANNOTATION_TIMESTAMP]: rfc3339Nano(this.d.clock.nowMs()) };
    if (create) {
      try {
        await this.d.seedClient.create(ExtensionBastions, { metadata: { ...key, annotations }, spec: { ...desired } }, { signal });
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err; // the cache had not seen it yet: patch instead
      }
    }
    const body = { metadata: { annotations }, spec: { ...desired, providerConfig: null } };
    await this.d.seedClient.patch(ExtensionBastions, key, { type: "merge", body }, { signal });
  }

  private async delete(bastion: Bastion, rc: ReconcileContext, signal: AbortSignal): Promise<Result | void> {
    if (!hasFinalizer(bastion, FINALIZER_GARDENER)) return;
    const deleting: ReadyUpdate = { status: "False", reason: REASON_DELETING, message: MESSAGE_DELETING };
    if (readyReason(bastion) !== REASON_DELETING) this.d.recorder?.event(bastion, "Normal", REASON_DELETING, MESSAGE_DELETING);
    bastion = await this.status.write(bastion, deleting, undefined);

    const seedNamespace = await this.seedNamespaceOf(bastion, signal);
    if (seedNamespace === undefined) {
      rc.log.info("no cluster for the bastion's shoot: nothing can remain in the seed");
      await removeFinalizer(this.d.gardenClient, Bastions, bastion, FINALIZER_GARDENER, { signal });
      return;
    }
    const extKey = { namespace: seedNamespace, name: bastion.metadata.name ?? "" };
    if (bastion.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true") await this.propagateForceDeletion(extKey, signal);
    try {
      await this.d.seedClient.delete(ExtensionBastions, extKey, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`failed to delete bastion extension resource: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      await removeFinalizer(this.d.gardenClient, Bastions, bastion, FINALIZER_GARDENER, { signal });
      rc.log.info("Successfully deleted");
      return;
    }
    rc.log.info("bastion extension cleanup has not completed yet");
    return { requeueAfterMs: DELETION_RECHECK_MS };
  }

  private async propagateForceDeletion(key: { namespace: string; name: string }, signal: AbortSignal): Promise<void> {
    const ext: ExtensionBastion | undefined = await unlessNotFound(this.d.seedClient.get(ExtensionBastions, key, { signal }));
    if (!ext || ext.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true") return;
    const body = { metadata: { annotations: { [ANNOTATION_CONFIRMATION_FORCE_DELETION]: "true" } } };
    await unlessNotFound(this.d.seedClient.patch(ExtensionBastions, keyOf(ext), { type: "merge", body }, { signal }));
  }

  /** The control-plane namespace: from the Shoot, or (Shoot unreadable) from the Cluster of the Shoot; undefined if neither. */
  private async seedNamespaceOf(bastion: Bastion, signal: AbortSignal): Promise<string | undefined> {
    let shoot: Shoot | undefined;
    try {
      shoot = await this.getShoot(bastion, signal);
    } catch (err) {
      if (!isForbidden(err)) throw err; // a Shoot no longer of this seed is not ours to read
    }
    const id = shoot ? technicalIDOf(shoot) : "";
    if (id) return id;
    return namespaceFromClusters(this.d.seedCache, bastion.metadata.namespace ?? "", bastion.spec.shootRef?.name ?? "", signal);
  }
}
