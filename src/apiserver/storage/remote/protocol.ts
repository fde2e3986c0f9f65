// The messages between a RemoteStorage (in a worker thread) and the StorageService that owns the
// real storage (docs/adr/0013-api-server-workers.md): one MessagePort per worker carries its
// calls, their answers and its watches' events, in order.
import type { GetOptions, KeyValue, ListOptions, ListResult, StorageErrorCode, StorageEvent } from "../interface.ts";

/** A call of one Storage method, numbered by the caller. */
export type Call =
  | [id: number, op: "currentRevision"]
  | [id: number, op: "compactedRevision"]
  | [id: number, op: "get", key: string, options?: GetOptions]
  | [id: number, op: "list", prefix: string, options?: ListOptions]
  | [id: number, op: "create", key: string, value: string]
  | [id: number, op: "update", key: string, value: string, expectedModRevision: number]
  | [id: number, op: "delete", key: string, expectedModRevision?: number]
  | [id: number, op: "compact", revision: number];

/** A watch's start and end (watches are numbered by the caller too). */
export type WatchControl = ["watch", wid: number, prefix: string, afterRevision: number] | ["unwatch", wid: number];

export type Request = Call | WatchControl;

/** A StorageError (or, code undefined, any other failure) as data. */
export interface ErrorData {
  code?: StorageErrorCode;
  message: string;
  extra?: { key?: string; current?: KeyValue; compactedRevision?: number; currentRevision?: number };
}

export type Reply =
  | ["ok", id: number, result: number | KeyValue | ListResult | undefined]
  | ["error", id: number, error: ErrorData]
  | ["events", wid: number, events: StorageEvent[]]
  | ["watchError", wid: number, error: ErrorData];
