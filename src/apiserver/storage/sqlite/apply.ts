// What one write does to the tables, with etcd's semantics: the new log row at revision `rev`,
// the live-key row, and the refusals (KeyExists, NotFound, Conflict) that leave both unchanged.
// Run inside a write transaction, on the main thread (no fsync) or on the writer thread
// (writer-thread.ts), which answers only the revision and the previous version: the main thread
// has the rest (`appliedOf`).
import { type KeyValue, StorageError, type StorageEvent } from "../interface.ts";
import { type KvRow, type Statements, toKeyValue } from "./schema.ts";

/** A write as the writer thread receives it. */
export type WriteOp =
  | { op: "create"; key: string; value: string }
  | { op: "update"; key: string; value: string; expected: number }
  | { op: "delete"; key: string; expected?: number };

export interface Applied {
  result: KeyValue;
  event: StorageEvent;
}

/** What a write's row needs besides the op itself: its revision, and the key's previous version (update, delete). */
export interface Written {
  rev: number;
  prev?: KeyValue;
}

export function applyWrite(st: Statements, w: WriteOp, rev: number): Written {
  if (w.op === "create") {
    // The live-key row first: a key that exists fails it, and nothing was written. No read before.
    try {
      st.latestAdd.run(w.key, rev);
    } catch (err) {
      const cur = isKeyConflict(err) ? st.latestGet.get(w.key) : undefined;
      if (cur) throw new StorageError("KeyExists", `key ${w.key} already exists`, { key: w.key, current: toKeyValue(cur) });
      throw err;
    }
    // A create has no previous version (an earlier incarnation's delete row is compacted as a delete).
    st.insert.run(rev, w.key, w.value, 1, 0, rev, 0);
    return { rev };
  }
  const prev = precondition(w.key, st.latestGet.get(w.key), w.expected);
  if (w.op === "update") {
    st.insert.run(rev, w.key, w.value, 0, 0, prev.createRevision, prev.modRevision);
    st.latestSet.run(w.key, rev);
  } else {
    st.insert.run(rev, w.key, prev.value, 0, 1, prev.createRevision, prev.modRevision);
    st.latestDelete.run(w.key);
  }
  return { rev, prev };
}

/** The stored version and the event of a write that was applied (`applyWrite`'s answer). */
export function appliedOf(w: WriteOp, { rev, prev }: Written): Applied {
  if (w.op === "create") {
    const kv: KeyValue = { key: w.key, value: w.value, createRevision: rev, modRevision: rev };
    return { result: kv, event: { type: "put", kv } };
  }
  if (!prev) throw new Error(`the ${w.op} of ${w.key} came back without the key's previous version`);
  if (w.op === "update") {
    const kv: KeyValue = { key: w.key, value: w.value, createRevision: prev.createRevision, modRevision: rev };
    return { result: kv, event: { type: "put", kv, prev } };
  }
  const kv: KeyValue = { ...prev, modRevision: rev };
  return { result: kv, event: { type: "delete", kv, prev } };
}

function precondition(key: string, cur: KvRow | undefined, expected: number | undefined): KeyValue {
  if (!cur) throw new StorageError("NotFound", `key ${key} not found`, { key });
  const current = toKeyValue(cur);
  if (expected !== undefined && expected !== cur.id) {
    throw new StorageError("Conflict", `key ${key} was modified: expected revision ${expected}, found ${cur.id}`, {
      key,
      current,
    });
  }
  return current;
}

/** A create's INSERT into `latest` hit a live key. */
function isKeyConflict(err: unknown): boolean {
  return (err as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
