// Watch streaming (spec §2.2): one compact JSON event per line over a chunked 200 response, or
// one event per WebSocket message. Ends on timeout (no final event), after an ERROR event
// (410 and friends), when the client goes away (the store watch is stopped), when the client is
// too slow (its buffer passes a bound), and on server shutdown (gracefully, so informers re-watch).
import type { ServerResponse } from "node:http";
import type { WebSocket } from "ws";
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import { type StatusError, toStatusError } from "../../apimachinery/errors.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import type { WatchHandle, WatchSink } from "../registry/generic/interface.ts";

export const DEFAULT_MAX_WATCH_BUFFER = 16 * 1024 * 1024;

/** Where events go: an HTTP response or a WebSocket. */
export interface WatchOutput {
  /** Headers sent (HTTP) or connection open (WebSocket). */
  readonly started: boolean;
  begin(): void;
  send(text: string): void;
  /** Bytes queued but not yet written to the peer. */
  buffered(): number;
  end(): void;
  onClose(fn: () => void): void;
}

export function httpWatchOutput(res: ServerResponse): WatchOutput {
  return {
    get started() {
      return res.headersSent;
    },
    begin() {
      if (res.headersSent) return;
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked", "Cache-Control": "no-cache, private" });
      res.flushHeaders();
    },
    send(text) {
      if (!res.writableEnded && !res.destroyed) res.write(text + "\n");
    },
    buffered() {
      return res.writableLength + (res.socket?.writableLength ?? 0);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    onClose(fn) {
      res.once("close", fn);
    },
  };
}

export function webSocketWatchOutput(ws: WebSocket): WatchOutput {
  return {
    started: true,
    begin() {},
    send(text) {
      if (ws.readyState === ws.OPEN) ws.send(text);
    },
    buffered() {
      return ws.bufferedAmount;
    },
    end() {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    },
    onClose(fn) {
      ws.once("close", fn);
    },
  };
}

/** The running watches of a server, so shutdown can end them cleanly. */
export class WatchTracker {
  private readonly active = new Set<() => void>();
  add(finish: () => void): () => void {
    this.active.add(finish);
    return () => this.active.delete(finish);
  }
  get size(): number {
    return this.active.size;
  }
  /** Ends every running watch as on timeout: clients see a normal end of stream. */
  endAll(): void {
    for (const f of [...this.active]) f();
  }
}

export interface ServeWatchOptions {
  clock: Clock;
  /** Seconds; default: random in [30, 60) minutes, as kube-apiserver. */
  timeoutSeconds?: number;
  maxBuffered?: number;
  /** Converts each non-ERROR event's object (Table, PartialObjectMetadata). */
  transform?: (event: WatchEvent) => WatchEvent;
  /**
   * The transform returns the store's object unchanged (plain JSON output): the encoded line of an
   * event is then cached on that object and shared by every watcher that receives it.
   */
  sameObjects?: boolean;
  tracker?: WatchTracker;
}

const lines = new WeakMap<object, Map<string, string>>();

/** The encoded event, computed once per (object, type) for all watchers receiving that object. */
function sharedLine(e: WatchEvent): string {
  let byType = lines.get(e.object);
  if (!byType) lines.set(e.object, (byType = new Map()));
  let line = byType.get(e.type);
  if (line === undefined) byType.set(e.type, (line = JSON.stringify(e)));
  return line;
}

export function defaultWatchTimeoutSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

/**
 * Runs a watch: `start` opens the store watch with the given sink. If `start` fails before
 * anything was sent, the promise rejects (the caller answers with a Status); afterwards failures
 * become an ERROR event. Resolves when the stream has ended.
 */
export function serveWatch(out: WatchOutput, start: (sink: WatchSink) => Promise<WatchHandle>, opts: ServeWatchOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const max = opts.maxBuffered ?? DEFAULT_MAX_WATCH_BUFFER;
    let finished = false;
    let handle: WatchHandle | undefined;
    let untrack = () => {};

    const finish = (err?: StatusError) => {
      if (finished) return;
      finished = true;
      timer.cancel();
      untrack();
      handle?.stop();
      try {
        if (err) {
          out.begin();
          out.send(JSON.stringify({ type: "ERROR", object: err.toStatus() }));
        }
        out.end();
      } catch {
        // The connection is gone; nothing more to tell the client.
      }
      resolve();
    };

    const encode = (event: WatchEvent): string => {
      const e = event.type === "ERROR" || !opts.transform ? event : opts.transform(event);
      return opts.sameObjects && event.type !== "ERROR" && event.type !== "BOOKMARK" ? sharedLine(e) : JSON.stringify(e);
    };

    const sink: WatchSink = {
      shared: true,
      onEvent(event) {
        if (finished) return false;
        try {
          out.begin();
          out.send(encode(event));
        } catch (err) {
          // Never let a conversion or write failure escape into the store's dispatch loop.
          finish(toStatusError(err));
          return false;
        }
        if (event.type === "ERROR") {
          finish();
          return false;
        }
        if (out.buffered() > max) {
          finish();
          return false;
        }
        return true;
      },
      onEnd(err) {
        finish(err);
      },
    };

    const timer: Timer = opts.clock.setTimer((opts.timeoutSeconds ?? defaultWatchTimeoutSeconds()) * 1000, () => finish());
    out.onClose(() => finish());
    untrack = opts.tracker?.add(() => finish()) ?? untrack;

    start(sink).then(
      (h) => {
        handle = h;
        if (finished) h.stop();
        else out.begin();
      },
      (err: unknown) => {
        if (finished) return;
        if (!out.started) {
          finished = true;
          timer.cancel();
          untrack();
          reject(toStatusError(err));
          return;
        }
        finish(toStatusError(err));
      },
    );
  });
}
