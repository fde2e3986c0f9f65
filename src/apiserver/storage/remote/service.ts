// The owner's side of RemoteStorage: answers the calls arriving on a MessagePort with the real
// storage (the one SQLite database, its group commit and watch hub) and forwards the events of the
// watches opened through it. A closed port stops its watches.
import type { MessagePort } from "node:worker_threads";
import { type Storage, StorageError, type WatchHandle } from "../interface.ts";
import { BatchedPort } from "../../../utils/batched-port.ts";
import type { Call, ErrorData, Reply, Request } from "./protocol.ts";

export function errorData(err: unknown): ErrorData {
  if (err instanceof StorageError) return { code: err.code, message: err.message, extra: err.extra };
  return { message: err instanceof Error ? err.message : String(err) };
}

function run(storage: Storage, c: Call): Promise<unknown> {
  switch (c[1]) {
    case "currentRevision":
      return storage.currentRevision();
    case "compactedRevision":
      return storage.compactedRevision();
    case "get":
      return storage.get(c[2], c[3]);
    case "list":
      return storage.list(c[2], c[3]);
    case "create":
      return storage.create(c[2], c[3]);
    case "update":
      return storage.update(c[2], c[3], c[4]);
    case "delete":
      return storage.delete(c[2], c[3]);
    case "compact":
      return storage.compact(c[2]);
  }
}

export interface StorageService {
  /** Stops the port's watches and closes it (the storage stays open). */
  close(): void;
}

/** Serves `storage` to the RemoteStorage at the other end of `port`. */
export function serveStorage(storage: Storage, port: MessagePort): StorageService {
  const watches = new Map<number, WatchHandle>();
  let closed = false;
  const out = new BatchedPort<Reply>(port);
  const reply = (r: Reply) => {
    if (!closed) out.send(r);
  };
  const onBatch = (batch: Request[]) => {
    for (const m of batch) onMessage(m);
  };
  const onMessage = (m: Request) => {
    if (m[0] === "watch") {
      const wid = m[1];
      const handle = storage.watch(
        m[2],
        m[3],
        (events) => reply(["events", wid, events]),
        (err) => {
          watches.delete(wid);
          reply(["watchError", wid, errorData(err)]);
        },
      );
      watches.set(wid, handle);
      return;
    }
    if (m[0] === "unwatch") {
      watches.get(m[1])?.stop();
      watches.delete(m[1]);
      return;
    }
    const id = m[0];
    let result: Promise<unknown>;
    try {
      result = run(storage, m);
    } catch (err) {
      result = Promise.reject(err as Error);
    }
    result.then(
      (value) => reply(["ok", id, value as number | undefined]),
      (err: unknown) => reply(["error", id, errorData(err)]),
    );
  };
  const close = () => {
    if (closed) return;
    closed = true;
    for (const w of watches.values()) w.stop();
    watches.clear();
    out.close();
    port.off("message", onBatch);
    port.close();
  };
  port.on("message", onBatch);
  port.on("close", close);
  return { close };
}
