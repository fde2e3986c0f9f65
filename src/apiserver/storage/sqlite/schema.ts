// SQLite schema and statements of SQLiteStorage (kine's log-structured design, plus a "latest"
// table so that reads of the current state are indexed lookups, not GROUP BY over history).
import type Database from "better-sqlite3";
import type { KeyValue, StorageEvent } from "../interface.ts";

export const SCHEMA = `
-- One row per revision. For a delete row, value is the key's last value.
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  -- The row of the key's previous version (0 for a create; rows written before 2026-11-28 point
  -- a create at the delete row of the key's earlier incarnation, which compaction removes either way).
  prev_revision INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_id ON log (key, id);
-- The live keys and the log row holding their current version.
CREATE TABLE IF NOT EXISTS latest (
  key TEXT PRIMARY KEY,
  id INTEGER NOT NULL
) WITHOUT ROWID;
-- "compacted": the compacted revision; "swept": log rows at or below it were compacted away.
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Upper bound for "no upper bound": sorts after every key made of valid characters. */
export const MAX_KEY = String.fromCodePoint(0x10ffff).repeat(4);

export interface KvRow {
  key: string;
  value: string;
  create_revision: number;
  id: number;
}

export interface LogRow extends KvRow {
  created: number;
  deleted: number;
  prev_revision: number;
  prev_value: string | null;
  prev_create_revision: number | null;
}

export function toKeyValue(r: KvRow): KeyValue {
  return { key: r.key, value: r.value, createRevision: r.create_revision, modRevision: r.id };
}

export function toEvent(r: LogRow): StorageEvent {
  const kv = toKeyValue(r);
  const prev: KeyValue | undefined =
    r.prev_value === null || r.created === 1
      ? undefined
      : { key: r.key, value: r.prev_value, createRevision: r.prev_create_revision ?? 0, modRevision: r.prev_revision };
  if (r.deleted === 1) return { type: "delete", kv, prev: prev ?? { ...kv } };
  return prev ? { type: "put", kv, prev } : { type: "put", kv };
}

export function prepareStatements(db: Database.Database) {
  return {
    latestGet: db.prepare<[string], KvRow>(
      "SELECT l.key, l.value, l.create_revision, l.id FROM latest t JOIN log l ON l.id = t.id WHERE t.key = ?",
    ),
    insert: db.prepare<[number, string, string, number, number, number, number]>(
      "INSERT INTO log (id, key, value, created, deleted, create_revision, prev_revision) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    latestSet: db.prepare<[string, number]>("INSERT OR REPLACE INTO latest (key, id) VALUES (?, ?)"),
    // A create's: fails (SQLITE_CONSTRAINT_PRIMARYKEY, this statement undone) when the key is live.
    latestAdd: db.prepare<[string, number]>("INSERT INTO latest (key, id) VALUES (?, ?)"),
    latestDelete: db.prepare<[string]>("DELETE FROM latest WHERE key = ?"),
    // Current state of a key range, in key order; LIMIT -1 means no limit.
    listLatest: db.prepare<[string, string, number], KvRow>(
      `SELECT l.key, l.value, l.create_revision, l.id FROM latest t JOIN log l ON l.id = t.id
       WHERE t.key >= ? AND t.key < ? ORDER BY t.key LIMIT ?`,
    ),
    // State of a key range at an older revision: per key the newest row at or below it, unless a delete.
    listAt: db.prepare<[string, string, number, number], KvRow>(
      `SELECT key, value, create_revision, id FROM (
         SELECT key, value, deleted, create_revision, MAX(id) AS id FROM log
         WHERE key >= ? AND key < ? AND id <= ? GROUP BY key
       ) WHERE deleted = 0 ORDER BY key LIMIT ?`,
    ),
    // History of a key range in (after, upTo], in revision order, with each row's previous version.
    history: db.prepare<[number, number, string, string, number], LogRow>(
      `SELECT l.id, l.key, l.value, l.created, l.deleted, l.create_revision, l.prev_revision,
              p.value AS prev_value, p.create_revision AS prev_create_revision
       FROM log l LEFT JOIN log p ON p.id = l.prev_revision
       WHERE l.id > ? AND l.id <= ? AND l.key >= ? AND l.key < ? ORDER BY l.id LIMIT ?`,
    ),
    // Live keys in a range, and how many of them changed after a revision (their row id is larger).
    countLive: db.prepare<[string, string], { n: number }>("SELECT COUNT(*) AS n FROM latest WHERE key >= ? AND key < ?"),
    countChanged: db.prepare<[string, string, number], { n: number }>(
      "SELECT COUNT(*) AS n FROM latest WHERE key >= ? AND key < ? AND id > ?",
    ),
    metaGet: db.prepare<[string], { value: number }>("SELECT value FROM meta WHERE name = ?"),
    metaSet: db.prepare<[string, number]>("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)"),
    sequence: db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'log'"),
    // Compaction of the revisions (lo, hi]: the versions they superseded, then their delete rows.
    compactSuperseded: db.prepare<[number, number]>(
      "DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > ? AND id <= ? AND prev_revision > 0)",
    ),
    compactDeleted: db.prepare<[number, number]>("DELETE FROM log WHERE id > ? AND id <= ? AND deleted = 1"),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
