// What unread watch data may hold in memory: each watch's backlog (events queued by the server plus
// bytes handed to the connection but not yet taken by the peer) is charged to the watch, its user
// and the server. A watch over its own bound, or the largest stalled backlogs (the connection
// refused more data) when a user or the server is over theirs, are ended (as kube-apiserver's
// cacher ends a watcher whose channel is full): the client sees its stream end and re-lists, the
// server never runs out of memory. The number of concurrent watches per user is bounded too (429
// beyond it). The counts the bounds are checked against are a WatchTally: the process's own, or one
// shared by the workers of `--workers N`, whose budgets then end their own watches to keep the
// server's bounds.
import { newTooManyRequests } from "../../apimachinery/errors.ts";
import { LocalTally, type TallyKey, type WatchTally } from "./watch-tally.ts";

export interface WatchLimits {
  /** Backlog bytes of one watch. A watch with no backlog always takes the next event, however large. */
  perWatchBytes: number;
  /** Backlog bytes of all watches of one user. */
  perUserBytes: number;
  /** Backlog bytes of all watches of the server. */
  totalBytes: number;
  /** Concurrent watches of one user. */
  perUserWatches: number;
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = {
  perWatchBytes: 16 * 1024 * 1024,
  perUserBytes: 64 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
  perUserWatches: 500,
};

interface UserUsage {
  /** This budget's watches of the user. */
  watches: Set<WatchAccount>;
}

/** One watch's share of the budget. */
export class WatchAccount {
  /** Bytes currently charged. */
  bytes = 0;
  closed = false;

  constructor(
    private readonly budget: WatchBudget,
    readonly user: string,
    /** The user's entry in the tally. */
    readonly key: TallyKey,
    /** Ends the watch at once, dropping its backlog; called at most once, then the account is closed. */
    private readonly evict: () => void,
  ) {}

  /**
   * Sets the watch's backlog. Returns false when the watch itself went over its bound and was
   * evicted; other watches (of this user, or the largest anywhere) may be evicted to make room.
   * caughtUp: the peer had taken everything before the data just added (then the watch takes it
   * whatever its size: a reader keeps up with any object). stalled: the connection refused more
   * data (only stalled watches are ended to bring a user or the server under its bound).
   */
  set(bytes: number, caughtUp = false, stalled = false): boolean {
    if (this.closed) return false;
    return this.budget.update(this, bytes, caughtUp, stalled);
  }

  /** Ends this watch's evict callback (called by the budget). */
  runEvict(): void {
    if (this.closed) return;
    this.budget.release(this);
    this.evict();
  }

  /** The watch ended: its bytes and its place in the user's count are released. */
  close(): void {
    if (!this.closed) this.budget.release(this);
  }
}

export class WatchBudget {
  readonly limits: WatchLimits;
  private readonly users = new Map<string, UserUsage>();
  /** Stalled watches with a backlog (candidates for eviction). */
  private readonly backlogged = new Set<WatchAccount>();
  /** Watches ended for being over a bound (for tests and metrics). */
  evictions = 0;

  /** `tally`: where the counts are kept (default: this budget's own). */
  constructor(
    limits: Partial<WatchLimits> = {},
    private readonly tally: WatchTally = new LocalTally(),
  ) {
    this.limits = { ...DEFAULT_WATCH_LIMITS, ...limits };
  }

  /** Backlog bytes of all watches (of every budget sharing the tally). */
  get totalBytes(): number {
    return this.tally.totalBytes();
  }

  /** Concurrent watches of all users in this budget. */
  get watches(): number {
    let n = 0;
    for (const u of this.users.values()) n += u.watches.size;
    return n;
  }

  /** Throws 429 TooManyRequests when user already has the most watches allowed. */
  admit(user: string): void {
    if (this.tally.watches(user) >= this.limits.perUserWatches) throw this.tooMany(user);
  }

  /** Starts a watch for user (429 as admit() when the user has the most watches allowed). */
  open(user: string, evict: () => void): WatchAccount {
    const key = this.tally.open(user, this.limits.perUserWatches);
    if (!key) throw this.tooMany(user);
    let usage = this.users.get(user);
    if (!usage) this.users.set(user, (usage = { watches: new Set() }));
    const account = new WatchAccount(this, user, key, evict);
    usage.watches.add(account);
    return account;
  }

  private tooMany(user: string): Error {
    return newTooManyRequests(`Too many requests, please try again later: user "${user}" has ${this.limits.perUserWatches} watches open, the most allowed`, 1);
  }

  /** Called by WatchAccount.set. */
  update(a: WatchAccount, bytes: number, caughtUp: boolean, stalled: boolean): boolean {
    const usage = this.users.get(a.user) as UserUsage;
    const before = a.bytes;
    const delta = bytes - before;
    a.bytes = bytes;
    if (delta !== 0) this.tally.addBytes(a.key, delta);
    if (bytes > 0 && stalled) this.backlogged.add(a);
    else this.backlogged.delete(a);
    // An event after the peer caught up is always taken (a reader keeps up with any object size);
    // a backlog that grows past the bound is a watcher not keeping up.
    if (delta > 0 && !caughtUp && bytes > this.limits.perWatchBytes) {
      this.evict(a);
      return false;
    }
    if (delta > 0 || stalled) {
      this.shed(usage.watches, () => this.tally.userBytes(a.key) > this.limits.perUserBytes);
      this.shed(this.backlogged, () => this.tally.totalBytes() > this.limits.totalBytes);
    }
    return !a.closed;
  }

  /** Called when an account closes. */
  release(a: WatchAccount): void {
    a.closed = true;
    const usage = this.users.get(a.user);
    if (usage) {
      usage.watches.delete(a);
      if (usage.watches.size === 0) this.users.delete(a.user);
    }
    this.tally.close(a.key, a.bytes);
    a.bytes = 0;
    this.backlogged.delete(a);
  }

  /**
   * Evicts the largest backlogs among candidates while over() holds. Usually one eviction brings
   * the total back under: one scan for the largest. If not (a burst), the rest are sorted once and
   * ended largest first (an eviction changes no other watch's backlog): n log n for the burst, not
   * a scan of every candidate for each watch it ends.
   */
  private shed(candidates: Set<WatchAccount>, over: () => boolean): void {
    if (!over()) return;
    let largest: WatchAccount | undefined;
    for (const c of candidates) if (this.backlogged.has(c) && (!largest || c.bytes > largest.bytes)) largest = c;
    if (!largest) return;
    this.evict(largest);
    if (!over()) return;
    const largestFirst = [...candidates].filter((c) => this.backlogged.has(c)).sort((a, b) => b.bytes - a.bytes);
    for (const c of largestFirst) {
      if (!over()) return;
      // An ended watch has left the backlogged set.
      if (this.backlogged.has(c)) this.evict(c);
    }
  }

  private evict(a: WatchAccount): void {
    this.evictions++;
    a.runEvict();
  }
}
