// Reads waiting for the watch cache to reach a revision, each with a deadline.
import type { Clock, Timer } from "../../../utils/clock.ts";

interface Waiter {
  revision: number;
  timer: Timer;
  resolve(reached: boolean): void;
}

export class RevisionWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** Resolves true once wake() reports revision (or more), false after the timeout or cancelAll(). */
  wait(revision: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        revision,
        timer: this.clock.setTimer(this.timeoutMs, () => waiter.resolve(false)),
        resolve: (reached) => {
          waiter.timer.cancel();
          this.waiters.delete(waiter);
          resolve(reached);
        },
      };
      this.waiters.add(waiter);
    });
  }

  wake(current: number): void {
    for (const w of [...this.waiters]) if (w.revision <= current) w.resolve(true);
  }

  cancelAll(): void {
    for (const w of [...this.waiters]) w.resolve(false);
  }
}
