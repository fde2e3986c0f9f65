// Watch streaming (docs/kubernetes-api.md#watch): one compact JSON event per line over a chunked 200 response, or
// one event per WebSocket message. Ends on timeout (no final event), after an ERROR event
// (410 and friends), when the client goes away (the store watch is stopped), when the client is
// too slow (its backlog passes a bound of watch-budget.ts: the connection is cut and the backlog
// released), and on server shutdown (gracefully, so informers re-watch).
import type { ServerResponse } from "node:http";
import { constants as h2 } from "node:http2";
import type { WebSocket } from "ws";
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import { type StatusError, toStatusError } from "../../apimachinery/errors.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import type { WatchHandle, WatchSink } from "../registry/generic/interface.ts";
import { type WatchAccount, WatchBudget } from "./watch-budget.ts";
import { type Pumpable, watchWriter, type WatchWriter } from "./watch-writer.ts";

/** Where events go: an HTTP response or a WebSocket. */
export interface WatchOutput {
  /** Headers sent (HTTP) or connection open (WebSocket). */
  readonly started: boolean;
  /** HTTP: an event line may be written in pieces (chunks); WebSocket: one whole message per event. */
  readonly pieces: boolean;
  begin(): void;
  /** Writes data (a line with its newline, or an event's message); false: wait for onDrain before writing more. */
  write(data: Buffer): boolean;
  /** Bytes handed to the connection that the peer has not taken yet. */
  buffered(): number;
  onDrain(fn: () => void): void;
  /** Ends the stream after what was written (the client sees a normal end). */
  end(): void;
  /** Closes the connection at once, dropping whatever is still queued. */
  abort(): void;
  onClose(fn: () => void): void;
}

export function httpWatchOutput(res: ServerResponse): WatchOutput {
  return {
    pieces: true,
    get started() {
      return res.headersSent;
    },
    begin() {
      if (res.headersSent) return;
      // No Content-Length: HTTP/1.1 chunks the body, HTTP/2 sends DATA frames (where Transfer-Encoding is forbidden).
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private" });
      res.flushHeaders();
    },
    write(data) {
      if (res.writableEnded || res.destroyed) return true;
      return res.write(data);
    },
    buffered() {
      // Includes the socket's queue (and the write it has in flight).
      return res.writableLength;
    },
    onDrain(fn) {
      res.on("drain", fn);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    abort() {
      // HTTP/2: only this stream ends, reset with CANCEL so the client sees an error, as a cut
      // HTTP/1.1 connection is one (a destroy alone would reset it with NO_ERROR).
      const stream = (res as { stream?: { close(code: number): void } }).stream;
      if (stream) stream.close(h2.NGHTTP2_CANCEL);
      else res.destroy();
    },
    onClose(fn) {
      res.once("close", fn);
    },
  };
}

/** Bytes a WebSocket watch may have in flight before it waits for the peer. */
const WS_HIGH_WATER = 64 * 1024;

export function webSocketWatchOutput(ws: WebSocket): WatchOutput {
  let inFlight = 0;
  let needDrain = false;
  const drained: (() => void)[] = [];
  return {
    started: true,
    pieces: false,
    begin() {},
    write(data) {
      if (ws.readyState !== ws.OPEN) return true;
      inFlight += data.length;
      ws.send(data, { binary: false }, () => {
        inFlight -= data.length;
        if (needDrain && inFlight < WS_HIGH_WATER) {
          needDrain = false;
          for (const fn of drained) fn();
        }
      });
      if (inFlight < WS_HIGH_WATER) return true;
      needDrain = true;
      return false;
    },
    buffered() {
      return inFlight;
    },
    onDrain(fn) {
      drained.push(fn);
    },
    end() {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
    },
    abort() {
      ws.terminate();
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
  /** Seconds; default: random in [minRequestTimeout, 2*minRequestTimeout), as kube-apiserver; larger values are clamped to that. */
  timeoutSeconds?: number;
  /** kube-apiserver's --min-request-timeout, in seconds (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** The server's watch budget (default: one of its own, with the default limits). */
  budget?: WatchBudget;
  /** The user the watch is charged to. */
  user?: string;
  /** Converts each non-ERROR event's object (Table, PartialObjectMetadata). */
  transform?: (event: WatchEvent) => WatchEvent;
  /**
   * The transform returns the store's object unchanged (plain JSON output): the encoded line of an
   * event is then cached on that object and shared by every watcher that receives it.
   */
  sameObjects?: boolean;
  tracker?: WatchTracker;
  /** Hands queued data to connections (default: the process's, a bounded amount per event-loop turn). */
  writer?: WatchWriter;
}

export const DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS = 1800;
/** HTTP chunks an event line is written in: what one slow connection holds beyond the server's queue. */
const PIECE_BYTES = 64 * 1024;
/** How long an ended stream may take to hand its last bytes to the peer before the connection is cut. */
const END_GRACE_MS = 10_000;

const lines = new WeakMap<object, Map<string, Buffer>>();

/** The encoded event line, computed once per (object, type) for all watchers receiving that object. */
function sharedLine(e: WatchEvent): Buffer {
  let byType = lines.get(e.object);
  if (!byType) lines.set(e.object, (byType = new Map()));
  let line = byType.get(e.type);
  if (line === undefined) byType.set(e.type, (line = encodeLine(e)));
  return line;
}

function encodeLine(e: WatchEvent): Buffer {
  return Buffer.from(JSON.stringify(e) + "\n", "utf8");
}

/** A watch's timeout in seconds: the requested one up to 2*min, else random in [min, 2*min). */
export function watchTimeoutSeconds(requested: number | undefined, minRequestTimeout = DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS): number {
  const max = 2 * minRequestTimeout;
  if (requested !== undefined && requested > 0) return Math.min(requested, max);
  return minRequestTimeout + Math.floor(Math.random() * minRequestTimeout);
}

/**
 * Runs a watch: `start` opens the store watch with the given sink. If `start` fails before
 * anything was sent, the promise rejects (the caller answers with a Status); afterwards failures
 * become an ERROR event. Resolves when the stream has ended.
 *
 * Backpressure: events wait in the watch's queue (shared lines: references, not copies) and the
 * writer hands them to the connection, a piece per turn, only while it accepts them (write()
 * true). Queue plus connection backlog are charged to the budget, which ends the watch (dropping
 * both) when it is over its bounds.
 */
export function serveWatch(out: WatchOutput, start: (sink: WatchSink) => Promise<WatchHandle>, opts: ServeWatchOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let account: WatchAccount;
    try {
      account = (opts.budget ?? new WatchBudget()).open(opts.user ?? "", () => abort());
    } catch (err) {
      reject(toStatusError(err));
      return;
    }
    /** running: events flow; ending: the queue drains, then the stream ends; done: over. */
    let state: "running" | "ending" | "done" = "running";
    let handle: WatchHandle | undefined;
    let untrack = () => {};
    let graceTimer: Timer | undefined;
    let queue: Buffer[] = [];
    let head = 0;
    let queued = 0;
    let waiting = false;

    const stopWatch = () => {
      timer.cancel();
      untrack();
      handle?.stop();
    };
    const dropQueue = () => {
      queue = [];
      head = 0;
      queued = 0;
    };

    /** Ends at once: the connection is cut and everything queued for it released. */
    const abort = () => {
      if (state === "done") return;
      state = "done";
      stopWatch();
      graceTimer?.cancel();
      dropQueue();
      account.close();
      try {
        out.abort();
      } catch {
        // already gone
      }
      resolve();
    };

    const endIfDrained = () => {
      if (state !== "ending" || head < queue.length) return;
      try {
        out.end();
      } catch {
        // The connection is gone; nothing more to tell the client.
      }
    };

    /** Called by the writer in its turn: hands the connection one piece. */
    const pumpable: Pumpable = {
      writeOne() {
        if (state === "done" || waiting || head >= queue.length) return { bytes: 0, more: false };
        const piece = queue[head] as Buffer;
        queue[head++] = EMPTY;
        queued -= piece.length;
        if (!out.write(piece)) waiting = true;
        if (head === queue.length) dropQueue();
        else if (head > 1024 && head * 2 > queue.length) {
          queue = queue.slice(head);
          head = 0;
        }
        // Stalled: charged as such (the budget may end this watch); drained: the charge shrinks.
        const alive = waiting || head === queue.length ? account.set(queued + out.buffered(), false, waiting) : true;
        if (!alive) return { bytes: piece.length, more: false };
        if (!waiting) endIfDrained();
        return { bytes: piece.length, more: !waiting && head < queue.length };
      },
    };
    const pump = () => (opts.writer ?? watchWriter).wake(pumpable);

    /** The peer has taken everything so far (measured before anything of the next event is written, headers included). */
    const caughtUp = () => head === queue.length && out.buffered() === 0;

    /** Queues one encoded line and writes what the connection takes; false when the watch was evicted. */
    const enqueue = (line: Buffer, idle: boolean): boolean => {
      if (!out.pieces) queue.push(line.subarray(0, line.length - 1));
      else for (let off = 0; off < line.length; off += PIECE_BYTES) queue.push(line.subarray(off, off + PIECE_BYTES));
      queued += out.pieces ? line.length : line.length - 1;
      pump();
      return account.set(queued + out.buffered(), idle, waiting);
    };

    /** Ends gracefully: what is queued is still sent (within END_GRACE_MS), then the stream ends. */
    const finish = (err?: StatusError) => {
      if (state !== "running") return;
      state = "ending";
      stopWatch();
      try {
        if (err) {
          const idle = caughtUp();
          out.begin();
          if (!enqueue(encodeLine({ type: "ERROR", object: err.toStatus() as unknown as WatchEvent["object"] }), idle)) return;
        }
        endIfDrained();
      } catch {
        // The connection is gone; nothing more to tell the client.
      }
      if (state === "ending" && (head < queue.length || out.buffered() > 0)) graceTimer = opts.clock.setTimer(END_GRACE_MS, abort);
      resolve();
    };

    const encode = (event: WatchEvent): Buffer => {
      const e = event.type === "ERROR" || !opts.transform ? event : opts.transform(event);
      return opts.sameObjects && event.type !== "ERROR" && event.type !== "BOOKMARK" ? sharedLine(e) : encodeLine(e);
    };

    const sink: WatchSink = {
      shared: true,
      onEvent(event) {
        if (state !== "running") return false;
        try {
          const idle = caughtUp();
          out.begin();
          if (!enqueue(encode(event), idle)) return false;
        } catch (err) {
          // Never let a conversion or write failure escape into the store's dispatch loop.
          finish(toStatusError(err));
          return false;
        }
        if (event.type === "ERROR") {
          finish();
          return false;
        }
        return true;
      },
      onEnd(err) {
        finish(err);
      },
    };

    const timer: Timer = opts.clock.setTimer(watchTimeoutSeconds(opts.timeoutSeconds, opts.minRequestTimeoutSeconds) * 1000, () => finish());
    out.onDrain(() => {
      if (state === "done") return;
      waiting = false;
      if (!account.set(queued + out.buffered())) return;
      pump();
      endIfDrained();
    });
    out.onClose(() => {
      if (state === "running") finish();
      state = "done";
      graceTimer?.cancel();
      stopWatch();
      dropQueue();
      account.close();
      resolve();
    });
    untrack = opts.tracker?.add(() => finish()) ?? untrack;

    start(sink).then(
      (h) => {
        handle = h;
        if (state !== "running") h.stop();
        else out.begin();
      },
      (err: unknown) => {
        if (state !== "running") return;
        if (!out.started) {
          state = "done";
          stopWatch();
          account.close();
          reject(toStatusError(err));
          return;
        }
        finish(toStatusError(err));
      },
    );
  });
}

const EMPTY = Buffer.alloc(0);
