// How a write retries after it lost a compare-and-swap to another writer (docs/kubernetes-api.md#update).
// As kube-apiserver's GuaranteedUpdate, an unconditional write (no resourceVersion precondition: a
// patch, a PUT without one, a delete without preconditions) tries again for as long as other writers
// keep winning, never answering 409 for a conflict it did not ask for: each lost attempt means another
// write succeeded. Bounded in time, not in count: the first attempts follow each other at once, later
// ones after a short, growing, jittered pause, and past RETRY_BUDGET_MS the request ends with 504
// Timeout, as kube-apiserver's ends when its request deadline passes. After a pause the current
// version the lost attempt reported is likely stale (the writers that keep winning wrote again
// meanwhile), so the next attempt reads the key again instead of losing once more for sure.
import { newTimeout } from "../../../apimachinery/errors.ts";

/** Lost attempts retried at once before pauses begin. */
export const IMMEDIATE_RETRIES = 16;
/** Longest pause between two attempts. */
export const MAX_PAUSE_MS = 50;
/** Wall time after the first attempt within which a write keeps retrying. */
export const RETRY_BUDGET_MS = 30_000;

export class ConflictRetry {
  private lost = 0;
  private readonly startedMs = performance.now();

  constructor(private readonly budgetMs = RETRY_BUDGET_MS) {}

  /**
   * After a lost compare-and-swap: resolves when to try again, with the current version the lost
   * attempt reported, or undefined when it paused first (read the key again then); 504 Timeout
   * once the budget is spent.
   */
  async next<T>(reported?: T): Promise<T | undefined> {
    this.lost++;
    if (performance.now() - this.startedMs > this.budgetMs) {
      throw newTimeout(`Timeout: request did not complete within the allowed duration: ${this.lost} attempts lost to concurrent writers`);
    }
    if (this.lost <= IMMEDIATE_RETRIES) return reported;
    const pause = Math.min(MAX_PAUSE_MS, 2 ** Math.min(this.lost - IMMEDIATE_RETRIES, 6));
    await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random() / 2)));
    return undefined;
  }
}
