// Bastion storage strategy (docs/bastion.md#storage-strategy): the API server owns the heartbeat clock.
// - create: generation 1, client status discarded (docs/bastion.md#d4-client-status-is-dropped-on-create), heartbeat applied, keepalive/reconcile consumed;
// - update: status kept; spec.seedName and spec.providerType kept from the stored object (set by
//   admission on create, never changed by clients: a Bastion never moves to another seed); generation bumped on a spec change, a new deletionTimestamp, operation
//   `reconcile` (consumed in the same write, docs/bastion.md#d5-reconcile-is-consumed-in-the-bumping-write) or a newly confirmed force deletion; operation
//   `keepalive` applies the heartbeat and is consumed;
// - /status: only status changes; a missing heartbeat keeps the stored one; the expiration is
//   always heartbeat + TTL.
// The strategy sets metadata.generation itself; the generic store keeps it (it only ever sets
// stored+1 when anything outside metadata/status changed, which agrees with these rules).
import {
  ANNOTATION_CONFIRMATION_FORCE_DELETION,
  ANNOTATION_OPERATION,
  OPERATION_KEEPALIVE,
  OPERATION_RECONCILE,
} from "../../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion, BastionStatus } from "../../../../apis/operations/v1alpha1/types.ts";
import type { ObjectMeta } from "../../../../apis/meta/v1/types.ts";
import { semanticEqual } from "../../../../api/equality.ts";
import {
  validateBastionImmutables,
  validateBastionSpec,
  validateBastionStatusUpdate,
} from "../../../../api/operations/validation/bastion.ts";
import type { Clock } from "../../../../utils/clock.ts";
import { normalizeTime } from "../../core/time.ts";
import type { Strategy } from "../../types.ts";
import { metaTime } from "../../../../utils/time.ts";

export interface BastionStrategyOptions {
  /** Heartbeat time-to-live (`--bastion-time-to-live`, default 1h). */
  ttlMs: number;
  /** The server's clock: "now" for heartbeats and for the future-heartbeat check. */
  clock: Clock;
}

export const DEFAULT_BASTION_TTL_MS = 60 * 60 * 1000;

function operationOf(meta: ObjectMeta): string | undefined {
  return meta.annotations?.[ANNOTATION_OPERATION];
}

function removeOperation(meta: ObjectMeta): void {
  if (!meta.annotations) return;
  delete meta.annotations[ANNOTATION_OPERATION];
}

function forceDeletionConfirmed(meta: ObjectMeta): boolean {
  return meta.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true";
}

/** The seed binding and provider as stored: whatever the update says, a Bastion stays where it is. */
function keepStoredBinding(bastion: Bastion, old: Bastion): void {
  if (typeof bastion.spec !== "object" || bastion.spec === null) return;
  for (const field of ["seedName", "providerType"] as const) {
    const value = old.spec?.[field];
    if (value === undefined) delete bastion.spec[field];
    else bastion.spec[field] = value;
  }
}

export function bastionStrategy(opts: BastionStrategyOptions): Strategy<Bastion> {
  const expiration = (heartbeat: string): string | undefined => {
    const t = Date.parse(heartbeat);
    return Number.isNaN(t) ? undefined : metaTime(t + opts.ttlMs);
  };
  const heartbeat = (bastion: Bastion): void => {
    const now = metaTime(opts.clock.nowMs());
    bastion.status = { ...(bastion.status ?? {}), lastHeartbeatTimestamp: now, expirationTimestamp: expiration(now)! };
  };

  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,

    prepareForCreate(_ctx, bastion) {
      bastion.metadata.generation = 1;
      delete bastion.status;
      const op = operationOf(bastion.metadata);
      if (op === OPERATION_KEEPALIVE || op === OPERATION_RECONCILE) removeOperation(bastion.metadata);
      heartbeat(bastion);
    },

    prepareForUpdate(_ctx, bastion, old) {
      if (old.status === undefined) delete bastion.status;
      else bastion.status = structuredClone(old.status);
      keepStoredBinding(bastion, old);
      const meta = bastion.metadata;
      const op = operationOf(meta);
      const bump =
        !semanticEqual(bastion.spec, old.spec) ||
        (Boolean(meta.deletionTimestamp) && !old.metadata.deletionTimestamp) ||
        op === OPERATION_RECONCILE ||
        (forceDeletionConfirmed(meta) && !forceDeletionConfirmed(old.metadata));
      meta.generation = (old.metadata.generation ?? 0) + (bump ? 1 : 0);
      if (op === OPERATION_RECONCILE) removeOperation(meta);
      if (op === OPERATION_KEEPALIVE) {
        removeOperation(meta);
        heartbeat(bastion);
      }
    },

    prepareForStatusUpdate(_ctx, bastion, old) {
      const status: BastionStatus = { ...(bastion.status ?? {}) };
      const given = status.lastHeartbeatTimestamp;
      const heartbeatValue = typeof given === "string" && given !== "" ? normalizeTime(given) : old.status?.lastHeartbeatTimestamp;
      delete status.expirationTimestamp;
      if (heartbeatValue === undefined) {
        delete status.lastHeartbeatTimestamp;
      } else {
        status.lastHeartbeatTimestamp = heartbeatValue;
        const expires = expiration(heartbeatValue);
        if (expires !== undefined) status.expirationTimestamp = expires;
      }
      bastion.status = status;
    },

    // The store validates ObjectMeta (with the definition's DNS-1123 label name rule); these add docs/bastion.md#validation.
    validate: (_ctx, bastion) => validateBastionSpec(bastion.spec),
    validateUpdate: (_ctx, bastion, old) => [...validateBastionImmutables(bastion, old), ...validateBastionSpec(bastion.spec)],
    validateStatusUpdate: (_ctx, bastion) => validateBastionStatusUpdate(bastion, opts.clock.now()),
  };
}
