// A Storage whose calls go over a MessagePort to the thread that owns the real storage
// (storage/remote/service.ts), so several worker threads share one SQLite database and its group
// commit (docs/adr/0013-api-server-workers.md). One message each way per call; each watch's
// events arrive as the owner's watch delivers them, in order, on the same port as the answers.
import type { MessagePort } from "node:worker_threads";
import { type GetOptions, type KeyValue, type ListOptions, type ListResult, type Storage, StorageError, type StorageEvent, type WatchHandle } from "../interface.ts";
import { BatchedPort, onBatches } from "../../../utils/batched-port.ts";
import type { Call, ErrorData, Reply, Request } from "./protocol.ts";

interface Pending {
  resolve: (v: never) => void;
  reject: (err: Error) => void;
}

interface Watch {
  onEvents: (events: StorageEvent[]) => void;
  onError: (err: StorageError) => void;
}

function toError(e: ErrorData): Error {
  return e.code ? new StorageError(e.code, e.message, e.extra ?? {}) : new Error(e.message);
}

export class RemoteStorage implements Storage {
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, Watch>();
  private nextId = 1;
  private closed = false;
  private readonly out: BatchedPort<Request>;

  constructor(
    private readonly port: MessagePort,
    readonly kind: "sqlite" | "etcd" = "sqlite",
  ) {
    this.out = new BatchedPort(port);
    onBatches(port, (r: Reply) => this.onReply(r));
  }

  currentRevision(): Promise<number> {
    return this.call((id) => [id, "currentRevision"]);
  }

  compactedRevision(): Promise<number> {
    return this.call((id) => [id, "compactedRevision"]);
  }

  get(key: string, options?: GetOptions): Promise<KeyValue | undefined> {
    return this.call((id) => [id, "get", key, options]);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.call((id) => [id, "list", prefix, options]);
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.call((id) => [id, "create", key, value]);
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.call((id) => [id, "update", key, value, expectedModRevision]);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.call((id) => [id, "delete", key, expectedModRevision]);
  }

  compact(revision: number): Promise<void> {
    return this.call((id) => [id, "compact", revision]);
  }

  watch(prefix: string, afterRevision: number, onEvents: (events: StorageEvent[]) => void, onError: (err: StorageError) => void): WatchHandle {
    const wid = this.nextId++;
    if (this.closed) {
      queueMicrotask(() => onError(new StorageError("Unavailable", "storage is closed")));
      return { stop: () => {} };
    }
    this.watches.set(wid, { onEvents, onError });
    this.send(["watch", wid, prefix, afterRevision]);
    return {
      stop: () => {
        if (!this.watches.delete(wid)) return;
        this.send(["unwatch", wid]);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wid of this.watches.keys()) this.send(["unwatch", wid]);
    this.watches.clear();
    const err = new StorageError("Unavailable", "storage is closed");
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.out.close();
    this.port.close();
  }

  private send(r: Request): void {
    if (!this.closed || r[0] === "unwatch") this.out.send(r);
  }

  private call<T>(make: (id: number) => Call): Promise<T> {
    if (this.closed) return Promise.reject(new StorageError("Unavailable", "storage is closed"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: never) => void, reject });
      this.out.send(make(id));
    });
  }

  private onReply(r: Reply): void {
    switch (r[0]) {
      case "ok":
      case "error": {
        const p = this.pending.get(r[1]);
        if (!p) return;
        this.pending.delete(r[1]);
        if (r[0] === "ok") p.resolve(r[2] as never);
        else p.reject(toError(r[2]));
        return;
      }
      case "events":
        this.watches.get(r[1])?.onEvents(r[2]);
        return;
      case "watchError": {
        const w = this.watches.get(r[1]);
        this.watches.delete(r[1]);
        w?.onError(toError(r[2]) as StorageError);
        return;
      }
    }
  }
}
