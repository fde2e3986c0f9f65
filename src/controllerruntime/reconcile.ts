// The reconciler contract. A request names an object (namespace/name), never an event: the
// reconciler reads the current state itself and makes one level-based, idempotent pass.
import type { Logger } from "pino";
import type { ObjectKey } from "../client/resource.ts";

export type Request = ObjectKey;

/**
 * What to do after a successful pass. `requeueAfterMs` schedules the key again after that long
 * and resets its failure backoff; `requeue` queues it again through the rate limiter (backoff).
 * Nothing (or {}) means done until the next change.
 */
export interface Result {
  requeue?: boolean;
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborted when the controller stops; pass it to API calls. */
  signal: AbortSignal;
  /** Carries controller, namespace and name in every line. */
  log: Logger;
  controller: string;
}

export interface Reconciler {
  reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void>;
}

export type ReconcileFunc = (req: Request, ctx: ReconcileContext) => Promise<Result | void>;

export function asReconciler(r: Reconciler | ReconcileFunc): Reconciler {
  return typeof r === "function" ? { reconcile: r } : r;
}

/**
 * An error that retrying cannot fix (bad input, a permanent refusal): the key is not requeued
 * and its backoff is reset. A later change to the object queues it again as usual.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** Wraps any error as terminal, keeping it as the cause. */
export function terminal(err: unknown): TerminalError {
  if (err instanceof TerminalError) return err;
  return new TerminalError(err instanceof Error ? err.message : String(err), { cause: err });
}

/** True if err or anything in its cause chain is a TerminalError. */
export function isTerminal(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}
