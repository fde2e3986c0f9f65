// The counts a watch budget's bounds are checked against: watches and backlog bytes per user, and
// backlog bytes in total. One server process keeps them in a map (LocalTally); the workers of
// `--workers N` share one tally in shared memory (server/workers/shared-tally.ts), so the bounds
// hold for the server as a whole, as in one process (docs/high-availability.md#workers).

/** A user's entry, from open(); passed back with every change of that user's watches. */
export interface TallyKey {
  readonly user: string;
}

export interface WatchTally {
  /** Watches the user has open. */
  watches(user: string): number;
  /**
   * Counts one more watch of the user, unless they have `max` open already (then undefined).
   * May throw a 429 StatusError when the tally has no room for another user.
   */
  open(user: string, max: number): TallyKey | undefined;
  /** One watch of the user ended; `bytes` is what it still had charged (taken back too). */
  close(key: TallyKey, bytes: number): void;
  /** Adds delta (may be negative) to the user's and the total backlog bytes. */
  addBytes(key: TallyKey, delta: number): void;
  userBytes(key: TallyKey): number;
  totalBytes(): number;
}

interface Entry extends TallyKey {
  watches: number;
  bytes: number;
}

/** The tally of one process. */
export class LocalTally implements WatchTally {
  private readonly users = new Map<string, Entry>();
  private total = 0;

  watches(user: string): number {
    return this.users.get(user)?.watches ?? 0;
  }

  open(user: string, max: number): TallyKey | undefined {
    let e = this.users.get(user);
    if ((e?.watches ?? 0) >= max) return undefined;
    if (!e) this.users.set(user, (e = { user, watches: 0, bytes: 0 }));
    e.watches++;
    return e;
  }

  close(key: TallyKey, bytes: number): void {
    const e = this.users.get(key.user);
    if (!e) return;
    e.bytes -= bytes;
    this.total -= bytes;
    if (--e.watches <= 0) this.users.delete(key.user);
  }

  addBytes(key: TallyKey, delta: number): void {
    const e = this.users.get(key.user);
    if (e) e.bytes += delta;
    this.total += delta;
  }

  userBytes(key: TallyKey): number {
    return this.users.get(key.user)?.bytes ?? 0;
  }

  totalBytes(): number {
    return this.total;
  }
}
