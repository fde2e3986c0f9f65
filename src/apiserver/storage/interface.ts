// The key-value storage contract the API server is built on: etcd v3 semantics (one global,
// monotonic revision; compare-and-swap on a key's mod revision; watch from a revision;
// compaction). Two implementations, SQLite and etcd, pass one conformance suite
// (conformance.ts). Values are opaque strings (the API layer stores JSON).

export interface KeyValue {
  key: string;
  value: string;
  /** Revision at which the key was (last) created. */
  createRevision: number;
  /** Revision of the last change; for a delete event, the revision of the deletion. */
  modRevision: number;
}

export type StorageEvent =
  /** A create (prev undefined) or an update. */
  | { type: "put"; kv: KeyValue; prev?: KeyValue }
  /** kv holds the last value, with modRevision set to the deletion's revision. */
  | { type: "delete"; kv: KeyValue; prev: KeyValue };

export interface ListOptions {
  /** Read at this revision (0 or undefined: the current one). Older than compacted -> Compacted. */
  revision?: number;
  /** Only keys >= startKey (still within the prefix). */
  startKey?: string;
  /** At most this many items (0 or undefined: all). */
  limit?: number;
  /**
   * "Any revision is fine": a cache may answer from its current state without first catching up
   * with the storage. Storages ignore it.
   */
  allowStale?: boolean;
}

export interface ListResult {
  /** Sorted by key. */
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when more keys under the prefix follow the last item. */
  more: boolean;
}

export type StorageErrorCode = "KeyExists" | "Conflict" | "NotFound" | "Compacted" | "FutureRevision" | "Unavailable";

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly extra: { key?: string; current?: KeyValue; compactedRevision?: number; currentRevision?: number } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StorageError";
  }
}

export interface WatchHandle {
  /** Stops delivery; no callback runs after it returns. */
  stop(): void;
}

export interface WatchOptions {
  /**
   * The caller keeps every watched key's last value itself (the watch cache) and fills previous
   * values in from it: put events may come without prev and a delete's kv and prev may hold only
   * its key and revisions. Over etcd this halves what an update's event carries.
   */
  prevKnown?: boolean;
}

export interface GetOptions {
  /**
   * A cache in front of the storage may answer from what it has seen so far, without first
   * catching up with the storage's current revision (kube-apiserver's resourceVersion "0"). A
   * storage that is always current ignores it.
   */
  allowStale?: boolean;
}

/**
 * Prefixes given to list and watch name a directory: a prefix not ending in "/" gets one appended,
 * so "/a/b" lists "/a/b/x" but neither "/a/bc" nor "/a/b" itself (like the apiserver's storage).
 */
export interface Storage {
  readonly kind: "sqlite" | "etcd";
  currentRevision(): Promise<number>;
  /** The highest compacted revision (0 when nothing was compacted). */
  compactedRevision(): Promise<number>;
  get(key: string, options?: GetOptions): Promise<KeyValue | undefined>;
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Fails with KeyExists when the key exists. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Compare-and-swap: fails with Conflict (extra.current set) unless the key's modRevision equals expected; NotFound if absent. */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes; with expectedModRevision it is a compare-and-delete (Conflict on mismatch). NotFound if absent. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Delivers, in revision order, every event under prefix with revision > afterRevision, then live
   * events. If afterRevision is below the compacted revision, onError gets a Compacted error and
   * the watch ends. Events of one transaction/revision arrive in one batch.
   */
  watch(
    prefix: string,
    afterRevision: number,
    onEvents: (events: StorageEvent[]) => void,
    onError: (err: StorageError) => void,
    options?: WatchOptions,
  ): WatchHandle;
  /** Drops history at and below revision (never the latest version of a live key). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
