// Test helpers for storage tests: a watch recorder that tests can await.
import type { Storage, StorageError, StorageEvent, WatchHandle } from "./interface.ts";

/** Default deadline for waiting on a watch: a bound on failure, not a sleep. */
const WAIT_MS = 10_000;

export class WatchRecorder {
  readonly events: StorageEvent[] = [];
  readonly batches: StorageEvent[][] = [];
  error: StorageError | undefined;
  private readonly handle: WatchHandle;
  private listeners = new Set<() => void>();

  constructor(storage: Storage, prefix: string, afterRevision: number) {
    this.handle = storage.watch(
      prefix,
      afterRevision,
      (events) => {
        this.batches.push(events);
        this.events.push(...events);
        this.notify();
      },
      (err) => {
        this.error = err;
        this.notify();
      },
    );
  }

  stop(): void {
    this.handle.stop();
  }

  /** Resolves once at least n events arrived; rejects on a watch error or after the deadline. */
  async waitForEvents(n: number, timeoutMs = WAIT_MS): Promise<StorageEvent[]> {
    await this.waitUntil(() => this.events.length >= n, `${n} events`, timeoutMs, true);
    return this.events;
  }

  /** Resolves with the watch's error; rejects if none arrives before the deadline. */
  async waitForError(timeoutMs = WAIT_MS): Promise<StorageError> {
    await this.waitUntil(() => this.error !== undefined, "a watch error", timeoutMs, false);
    return this.error as StorageError;
  }

  /** Revisions of the events received so far. */
  revisions(): number[] {
    return this.events.map((e) => e.kv.modRevision);
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }

  private waitUntil(cond: () => boolean, what: string, timeoutMs: number, failOnError: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (failOnError && this.error) {
          done();
          reject(new Error(`watch failed while waiting for ${what}: ${this.error.code}: ${this.error.message}`));
        } else if (cond()) {
          done();
          resolve();
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; got ${this.events.length} events`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }
}

/** Asserts that p rejects with a StorageError of the given code, and returns it. */
export async function expectStorageError(p: Promise<unknown>, code: StorageError["code"]): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    const e = err as StorageError;
    if (e?.name === "StorageError" && e.code === code) return e;
    throw new Error(`expected StorageError ${code}, got ${String(err)}`, { cause: err });
  }
  throw new Error(`expected StorageError ${code}, but the call succeeded`);
}

export interface StorageFixture {
  storage: Storage;
  cleanup(): Promise<void>;
}

export type MakeStorage = () => Promise<StorageFixture>;

/** Runs body against a fresh storage from make, always cleaning up. */
export function withStorage(make: MakeStorage, body: (s: Storage) => Promise<void>): () => Promise<void> {
  return async () => {
    const { storage, cleanup } = await make();
    try {
      await body(storage);
    } finally {
      await cleanup();
    }
  };
}
