// The worker's side of the connection relay: each connection the primary accepted (and did the
// TLS of) becomes a Duplex stream here, handed to the worker's HTTP server as if it had accepted
// it itself, so HTTP and everything above run on the worker's thread. The stream answers what the
// server asks a TLS socket: the client's address and port (audit, logs), `encrypted`,
// `authorized` and the verified client certificate's subject (x509 authentication), and idle
// timeouts (keep-alive).
import type { Server } from "node:http";
import { Duplex } from "node:stream";
import type { MessagePort } from "node:worker_threads";
import { BatchedPort, onBatches } from "../../../utils/batched-port.ts";
import type { RelayMessage, SocketAddress, VerifiedClient } from "./relay-protocol.ts";

class RelayedSocket extends Duplex {
  /** The primary said its socket cannot take more: writes wait for "resume". */
  private blocked = false;
  private waiting: (() => void)[] = [];
  /** We asked the primary to stop reading. */
  private paused = false;
  /** The primary's socket is gone: nothing to tell it on destroy. */
  gone = false;
  readonly encrypted = true;
  readonly authorized: boolean;
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly remoteFamily: string | undefined;
  readonly localAddress: string | undefined;
  readonly localPort: number | undefined;
  private idleMs = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleTimerMs = 0;

  constructor(
    readonly id: number,
    private readonly port: BatchedPort<RelayMessage>,
    peer: SocketAddress,
    local: SocketAddress,
    private readonly client: VerifiedClient | undefined,
    private readonly onGone: (id: number) => void,
  ) {
    super({ allowHalfOpen: true });
    this.authorized = client !== undefined;
    this.remoteAddress = peer.address;
    this.remotePort = peer.port;
    this.remoteFamily = peer.family;
    this.localAddress = local.address;
    this.localPort = local.port;
  }

  getPeerCertificate(): { subject?: VerifiedClient["subject"]; ext_key_usage?: string[] } {
    if (!this.client) return {};
    return { subject: this.client.subject, ...(this.client.extKeyUsage ? { ext_key_usage: this.client.extKeyUsage } : {}) };
  }

  /** As net.Socket: "timeout" after ms without traffic either way (0: never). */
  setTimeout(ms: number, cb?: () => void): this {
    this.idleMs = ms;
    if (cb) this.once("timeout", cb);
    this.touch();
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  private touch(): void {
    if (this.idleMs <= 0 || this.destroyed) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    } else if (this.idleTimer && this.idleTimerMs === this.idleMs) {
      this.idleTimer.refresh();
    } else {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimerMs = this.idleMs;
      this.idleTimer = setTimeout(() => this.emit("timeout"), this.idleMs).unref();
    }
  }

  received(bytes: Uint8Array): void {
    if (this.idleMs) this.touch();
    if (!this.push(bytes) && !this.paused) {
      this.paused = true;
      this.port.send(["pause", this.id]);
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
    this.port.send(["resume", this.id]);
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
    if (this.idleMs) this.touch();
    // A copy: the writer may still hold (and share) the chunk, e.g. one encoded watch event written
    // to every watcher, so its buffer must not be transferred away.
    const bytes = chunks.length === 1 ? new Uint8Array(chunks[0]!) : new Uint8Array(Buffer.concat(chunks));
    this.port.send(["data", this.id, bytes], bytes.buffer);
    if (this.blocked) this.waiting.push(() => cb());
    else cb();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (!this.gone) this.port.send(["end", this.id]);
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.gone) this.port.send(["destroy", this.id]);
    this.gone = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
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
 * Feeds the connections arriving on `port` into `server` (an HTTP server that never listens
 * itself). The server tracks them as its own, so closeIdleConnections and the request timeouts
 * work as usual.
 */
export function serveRelayed(server: Server, port: MessagePort): RelayedConnections {
  const sockets = new Map<number, RelayedSocket>();
  // The HTTP server starts tracking connections (idle closing, header timeouts) on "listening".
  server.emit("listening");
  const out = new BatchedPort<RelayMessage>(port);
  onBatches(port, (m: RelayMessage) => {
    if (m[0] === "open") {
      const s = new RelayedSocket(m[1], out, m[2], m[3], m[4], (id) => sockets.delete(id));
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
