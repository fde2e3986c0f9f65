// The worker's side of the connection relay: each connection the primary accepted becomes a
// Duplex stream here, handed to the worker's HTTPS server as if it had accepted it itself, so
// TLS, HTTP and everything above run on the worker's thread. The TLS socket reports the client's
// address and port as a socket on the listening port would (audit, logs).
import type { Server } from "node:https";
import { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { MessagePort } from "node:worker_threads";
import { post } from "./relay-primary.ts";
import { type RelayMessage, type SocketAddress, ownBytes } from "./relay-protocol.ts";

class RelayedSocket extends Duplex {
  /** The primary said its socket cannot take more: writes wait for "resume". */
  private blocked = false;
  private waiting: (() => void)[] = [];
  /** We asked the primary to stop reading. */
  private paused = false;
  /** The primary's socket is gone: nothing to tell it on destroy. */
  gone = false;

  constructor(
    readonly id: number,
    private readonly port: MessagePort,
    readonly peer: SocketAddress,
    readonly local: SocketAddress,
    private readonly onGone: (id: number) => void,
  ) {
    super({ allowHalfOpen: true });
  }

  received(bytes: Uint8Array): void {
    if (!this.push(bytes) && !this.paused) {
      this.paused = true;
      this.port.postMessage(["pause", this.id] satisfies RelayMessage);
    }
  }

  unblock(): void {
    this.blocked = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w();
  }

  block(): void {
    this.blocked = true;
  }

  override _read(): void {
    if (!this.paused) return;
    this.paused = false;
    this.port.postMessage(["resume", this.id] satisfies RelayMessage);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.send([chunk], cb);
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    this.send(
      chunks.map((c) => c.chunk),
      cb,
    );
  }

  private send(chunks: Buffer[], cb: (err?: Error | null) => void): void {
    const bytes = chunks.length === 1 ? ownBytes(chunks[0]!) : new Uint8Array(Buffer.concat(chunks));
    post(this.port, ["data", this.id, bytes]);
    if (this.blocked) this.waiting.push(() => cb());
    else cb();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (!this.gone) this.port.postMessage(["end", this.id] satisfies RelayMessage);
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.gone) this.port.postMessage(["destroy", this.id] satisfies RelayMessage);
    this.gone = true;
    this.onGone(this.id);
    this.unblock();
    cb(err);
  }
}

export interface RelayedConnections {
  /** Connections currently open on this worker. */
  readonly size: number;
  /** Cuts every connection. */
  destroyAll(): void;
}

/**
 * Feeds the connections arriving on `port` into `server` (an HTTPS server that never listens
 * itself). The server tracks them as its own, so closeIdleConnections and the request timeouts
 * work as usual.
 */
export function serveRelayed(server: Server, port: MessagePort): RelayedConnections {
  const sockets = new Map<number, RelayedSocket>();
  // The HTTP server starts tracking connections (idle closing, header timeouts) on "listening".
  server.emit("listening");
  // The TLS socket wraps the relayed stream; give it the client's addresses.
  server.prependListener("secureConnection", (tls: TLSSocket) => {
    const raw = (tls as unknown as { _handle?: { _parentWrap?: { stream?: unknown } } })._handle?._parentWrap?.stream;
    if (!(raw instanceof RelayedSocket)) return;
    Object.assign(tls, { _peername: raw.peer, _sockname: raw.local });
  });
  port.on("message", (m: RelayMessage) => {
    if (m[0] === "open") {
      const s = new RelayedSocket(m[1], port, m[2], m[3], (id) => sockets.delete(id));
      sockets.set(m[1], s);
      s.on("error", () => {});
      server.emit("connection", s);
      return;
    }
    const s = sockets.get(m[1]);
    if (!s) return;
    switch (m[0]) {
      case "data":
        s.received(m[2]);
        break;
      case "end":
        s.push(null);
        break;
      case "destroy":
        s.gone = true;
        s.destroy();
        break;
      case "pause":
        s.block();
        break;
      case "resume":
        s.unblock();
        break;
    }
  });
  return {
    get size() {
      return sockets.size;
    },
    destroyAll() {
      for (const s of sockets.values()) s.destroy();
    },
  };
}
