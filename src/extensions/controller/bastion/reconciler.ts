// The extension library's generic Bastion reconciler (docs/bastion.md#generic-reconciler, docs/bastion.md#lastoperation-and-lasterror): the part of
// every provider that is the same everywhere. It owns finalizer `extensions.gardener.cloud/bastion`,
// records lastOperation/lastError, runs the provider's ConfigValidator and calls its Actuator.
import {
  ANNOTATION_CONFIRMATION_FORCE_DELETION,
  ANNOTATION_OPERATION,
  OPERATION_RECONCILE,
  OPERATION_WAIT_FOR_STATE,
} from "../../../apis/gardencore/v1beta1/types.ts";
import { FINALIZER_BASTION, type Cluster, type ExtensionBastion, type LastOperationType } from "../../../apis/extensions/v1alpha1/types.ts";
import { isNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import { addFinalizer, hasFinalizer, removeFinalizer, unlessNotFound } from "../../../client/helpers.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Clusters, ExtensionBastions } from "../../resources.ts";
import { isRequeueAfter } from "../errors.ts";
import { StatusUpdater } from "../status.ts";
import type { Actuator, ActuatorContext } from "./actuator.ts";
import { type ConfigValidator, configValidationError } from "./configvalidator.ts";

/** Per-reconcile time limit of the extension reconciler. */
export const RECONCILE_TIMEOUT_MS = 20 * 60 * 1000;

export const PREFIX_CONFIG = "Error checking bastion config";
export const PREFIX_RECONCILE = "Error reconciling Bastion";
export const PREFIX_DELETE = "Error deleting Bastion";

export interface BastionReconcilerDeps {
  client: Client;
  cache: Cache;
  clock: Clock;
  actuator: Actuator;
  configValidator?: ConfigValidator;
  /** Events on the extension Bastion. */
  recorder?: EventRecorder;
}

/** Gardener's ComputeOperationType for the operations bastions know. */
export function operationType(b: ExtensionBastion): LastOperationType {
  if (b.metadata.deletionTimestamp) return "Delete";
  const last = b.status?.lastOperation;
  if (!last || (last.type === "Create" && last.state !== "Succeeded")) return "Create";
  return "Reconcile";
}

export class BastionReconciler implements Reconciler {
  private readonly status: StatusUpdater<ExtensionBastion>;

  constructor(private readonly d: BastionReconcilerDeps) {
    this.status = new StatusUpdater(d.client, ExtensionBastions, d.clock);
  }

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const signal = AbortSignal.any([rc.signal, AbortSignal.timeout(RECONCILE_TIMEOUT_MS)]);
    let bastion = await unlessNotFound(this.d.cache.get(ExtensionBastions, req, signal));
    if (!bastion) return;
    const op = bastion.metadata.annotations?.[ANNOTATION_OPERATION];
    if (op === OPERATION_WAIT_FOR_STATE) {
      rc.log.info("skipping: the object waits for its state (operation wait-for-state)");
      return;
    }
    if (op === OPERATION_RECONCILE) {
      const body = { metadata: { annotations: { [ANNOTATION_OPERATION]: null } } };
      bastion = await this.d.client.patch(ExtensionBastions, keyOf(bastion), { type: "merge", body }, { signal });
    }
    const cluster = await this.getCluster(bastion.metadata.namespace ?? "", signal);
    const actx: ActuatorContext = { log: rc.log, signal };
    const type = operationType(bastion);
    return bastion.metadata.deletionTimestamp ? this.delete(actx, bastion, cluster, type) : this.reconcileBastion(actx, bastion, cluster, type);
  }

  private async getCluster(name: string, signal: AbortSignal): Promise<Cluster> {
    try {
      return await this.d.cache.get(Clusters, { name }, signal);
    } catch (err) {
      if (isNotFound(err)) throw new Error(`could not get cluster for namespace ${name}: cluster ${name} not found`, { cause: err });
      throw err;
    }
  }

  private async reconcileBastion(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster, type: LastOperationType): Promise<Result | void> {
    const { client } = this.d;
    bastion = await addFinalizer(client, ExtensionBastions, bastion, FINALIZER_BASTION, { signal: ctx.signal });
    bastion = await this.status.processing(bastion, type, "Reconciling the Bastion", ctx.signal);
    if (this.d.configValidator) {
      const invalid = configValidationError(await this.d.configValidator.validate(ctx, bastion, cluster));
      if (invalid) return this.fail(ctx, bastion, type, PREFIX_CONFIG, invalid);
    }
    let reported: object | void;
    try {
      reported = await this.d.actuator.reconcile(ctx, bastion, cluster);
    } catch (err) {
      return this.fail(ctx, bastion, type, PREFIX_RECONCILE, err);
    }
    await this.status.success(bastion, type, "Successfully reconciled Bastion", ctx.signal, reported ?? {});
    this.d.recorder?.event(bastion, "Normal", "Reconciled", "Successfully reconciled Bastion");
    ctx.log.info("bastion reconciled");
  }

  private async delete(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster, type: LastOperationType): Promise<Result | void> {
    if (!hasFinalizer(bastion, FINALIZER_BASTION)) return;
    bastion = await this.status.processing(bastion, type, "Deleting the Bastion", ctx.signal);
    const force = bastion.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true";
    try {
      if (force) await this.d.actuator.forceDelete(ctx, bastion, cluster);
      else await this.d.actuator.delete(ctx, bastion, cluster);
    } catch (err) {
      return this.fail(ctx, bastion, type, PREFIX_DELETE, err);
    }
    bastion = await this.status.success(bastion, type, "Successfully reconciled Bastion", ctx.signal);
    await removeFinalizer(this.d.client, ExtensionBastions, bastion, FINALIZER_BASTION, { signal: ctx.signal });
    this.d.recorder?.event(bastion, "Normal", "Deleted", force ? "Successfully force-deleted Bastion" : "Successfully deleted Bastion");
    ctx.log.info({ force }, "bastion deleted");
  }

  /** Records the error; a requeue-after error is retried after its delay, anything else backs off. */
  private async fail(ctx: ActuatorContext, bastion: ExtensionBastion, type: LastOperationType, prefix: string, err: unknown): Promise<Result> {
    const cause = isRequeueAfter(err) ? (err.cause ?? err) : err;
    if (!isRequeueAfter(err)) this.d.recorder?.event(bastion, "Warning", type === "Delete" ? "DeleteFailed" : "ReconcileFailed", `${prefix}: ${cause instanceof Error ? cause.message : String(cause)}`);
    await this.status.error(bastion, type, prefix, cause, ctx.signal).catch((e: unknown) => ctx.log.error({ err: e }, "could not record the error in lastOperation"));
    if (isRequeueAfter(err)) {
      ctx.log.info({ delayMs: err.delayMs, reason: err.message }, "not done yet; looking again later");
      return { requeueAfterMs: err.delayMs };
    }
    throw err;
  }
}
