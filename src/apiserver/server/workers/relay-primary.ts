// The primary's side of the connection relay: one listening TLS socket, whose connections are
// handed to the workers round-robin. The primary does the TLS (native, on the socket) and moves the
// plain bytes, no HTTP: each chunk read from a client goes to its worker as one message, each chunk
// the worker writes comes back as one, with pause/resume in both directions so neither side
// buffers without bound. The worker learns the verified client certificate's subject with the
// connection.
import { createServer, type Server, type TLSSocket, type TlsOptions } from "node:tls";
import type { MessagePort } from "node:worker_threads";
import { BatchedPort, onBatches } from "../../../utils/batched-port.ts";
import { type RelayMessage, type VerifiedClient, ownBytes } from "./relay-protocol.ts";

interface Connection {
  socket: TLSSocket;
  worker: RelayTarget;
}

interface RelayTarget {
  index: number;
  port: MessagePort;
  out: BatchedPort<RelayMessage>;
  connections: Set<number>;
}

export class ConnectionRelay {
  private readonly server: Server;
  private readonly targets: (RelayTarget | undefined)[] = [];
  private readonly connections = new Map<number, Connection>();
  private nextId = 1;
  private nextTarget = 0;

  /** `tls`: the serving certificate and key, and the CAs client certificates are verified against. */
  constructor(tls: Pick<TlsOptions, "key" | "cert" | "ca">) {
    // ALPN: HTTP/1.1 only; the workers' servers speak nothing else (docs/adr/0016-http2.md).
    this.server = createServer({ ...tls, requestCert: true, rejectUnauthorized: false, noDelay: true, ALPNProtocols: ["http/1.1"] }, (socket) => this.accept(socket));
    this.server.on("tlsClientError", () => {});
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve((this.server.address() as { port: number }).port);
      });
    });
  }

  /** Routes new connections to this worker too; its earlier connections (if any) are cut. */
  attach(index: number, port: MessagePort): void {
    this.detach(index);
    const target: RelayTarget = { index, port, out: new BatchedPort(port), connections: new Set() };
    this.targets[index] = target;
    onBatches(port, (m: RelayMessage) => this.fromWorker(target, m));
  }

  /** No new connections go to this worker; its open ones are cut (their clients see a reset). */
  detach(index: number): void {
    const target = this.targets[index];
    if (!target) return;
    this.targets[index] = undefined;
    target.port.removeAllListeners("message");
    target.out.close();
    for (const id of target.connections) {
      this.connections.get(id)?.socket.destroy();
      this.connections.delete(id);
    }
    target.connections.clear();
  }

  /** Which worker serves the connection whose client side has this local port (for tests). */
  workerOfClientPort(port: number): number | undefined {
    for (const c of this.connections.values()) if (c.socket.remotePort === port) return c.worker.index;
    return undefined;
  }

  /** Open connections per worker index. */
  connectionCounts(): number[] {
    return this.targets.map((t) => t?.connections.size ?? 0);
  }

  /** Stops accepting; open connections stay until their workers end them. */
  stopAccepting(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Cuts every connection. */
  closeAll(): void {
    for (const c of this.connections.values()) c.socket.destroy();
    this.connections.clear();
  }

  private pick(): RelayTarget | undefined {
    const n = this.targets.length;
    for (let i = 0; i < n; i++) {
      const t = this.targets[(this.nextTarget + i) % n];
      if (t) {
        this.nextTarget = (t.index + 1) % n;
        return t;
      }
    }
    return undefined;
  }

  private accept(socket: TLSSocket): void {
    const worker = this.pick();
    if (!worker) {
      socket.destroy();
      return;
    }
    const id = this.nextId++;
    this.connections.set(id, { socket, worker });
    worker.connections.add(id);
    const peer = { address: socket.remoteAddress, port: socket.remotePort, family: socket.remoteFamily };
    const local = { address: socket.localAddress, port: socket.localPort, family: socket.localFamily };
    worker.out.send(["open", id, peer, local, verifiedClient(socket)]);
    socket.on("data", (chunk: Buffer) => sendBytes(worker.out, id, chunk));
    socket.on("end", () => worker.out.send(["end", id]));
    socket.on("drain", () => worker.out.send(["resume", id]));
    socket.on("error", () => {});
    socket.on("close", () => {
      if (this.connections.get(id)?.socket !== socket) return;
      this.connections.delete(id);
      worker.connections.delete(id);
      worker.out.send(["destroy", id]);
    });
  }

  private fromWorker(target: RelayTarget, m: RelayMessage): void {
    const c = this.connections.get(m[1]);
    if (!c || c.worker !== target) return;
    switch (m[0]) {
      case "data":
        if (!c.socket.write(m[2])) target.out.send(["pause", m[1]]);
        break;
      case "end":
        c.socket.end();
        break;
      case "destroy":
        this.connections.delete(m[1]);
        target.connections.delete(m[1]);
        c.socket.destroy();
        break;
      case "pause":
        c.socket.pause();
        break;
      case "resume":
        c.socket.resume();
        break;
    }
  }
}

/** The client certificate's subject, only when it verified against the client CAs. */
function verifiedClient(socket: TLSSocket): VerifiedClient | undefined {
  if (!socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  const subject = cert?.subject as unknown as Record<string, string | string[]> | undefined;
  if (!subject) return undefined;
  return { subject: { ...subject }, ...(cert.ext_key_usage ? { extKeyUsage: [...cert.ext_key_usage] } : {}) };
}

/** Sends a chunk read from a socket (ours alone), its buffer transferred (a copy when it shares a larger buffer). */
function sendBytes(out: BatchedPort<RelayMessage>, id: number, chunk: Uint8Array): void {
  const bytes = ownBytes(chunk);
  out.send(["data", id, bytes], bytes.buffer as ArrayBuffer);
}
