// The messages between SQLiteStorage's writer (writer.ts, the main thread) and its thread
// (writer-thread.ts), which owns the database's writes.
import type { StorageError, StorageErrorCode } from "../interface.ts";
import type { WriteOp, Written } from "./apply.ts";

/** A write, or one of compaction's steps: set a meta value, sweep the revisions (from, to], checkpoint the WAL. */
export type ThreadOp = WriteOp | { op: "meta"; name: string; value: number } | { op: "sweep"; from: number; to: number } | { op: "checkpoint" };

/**
 * The writer thread's nice value (docs/adr/0020-sqlite-writer-thread.md): the highest priority, so
 * that the thread runs as soon as a group is sent or its fdatasync completes instead of waiting
 * behind the main thread for a core. It takes little CPU (SQLite's statements and the syscalls of a
 * group). Without the privilege to raise it (CAP_SYS_NICE), the thread keeps the process's.
 */
export const WRITER_NICE = -20;

export type ToThread = { type: "ops"; ops: ThreadOp[] } | { type: "close" };

/** One op's outcome: written (a write) or done (the others), or refused by its precondition (nothing changed). */
export type ThreadResult =
  | { ok: true; written?: Written }
  | { ok: false; code: StorageErrorCode; message: string; extra: StorageError["extra"] };

export type FromThread =
  /** One group: the ops of every message taken, in order, committed and then fdatasync'ed at syncStartedAt (ms since the epoch). */
  | { type: "done"; results: ThreadResult[]; syncStartedAt: number }
  /**
   * The group's `count` ops failed and none is stored: a SQLite error rolled the group back, or
   * (fatal) an fdatasync failed, after which every later op fails too.
   */
  | { type: "failed"; count: number; message: string; code?: string; fatal: boolean }
  | { type: "closed" };
