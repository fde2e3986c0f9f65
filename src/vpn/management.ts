// OpenVPN's management interface (a unix socket): `status 2` and its parsing (docs/reversed-vpn.md#health).
// The answer is TITLE, TIME, HEADER, CLIENT_LIST, ROUTING_TABLE and GLOBAL_STATS lines, then END; any
// other line type is an error. Real-time notifications (`>...`) may come in between and are skipped.
import { type Socket, connect } from "node:net";

export const STATUS_TIMEOUT_MS = 2000;
/** A status answer is small (one client per server); more than this is refused. */
const MAX_STATUS_BYTES = 256 * 1024;

export interface ClientEntry {
  commonName: string;
  /** `ip:port`; OpenVPN 2.7 may prefix the protocol (`tcp4-server:ip:port`), which is kept as given. */
  realAddress: string;
  virtualAddress: string;
  bytesReceived: number;
  bytesSent: number;
  /** time_t of the connection's start. */
  connectedSince: number;
}

export interface ServerStatus {
  title: string;
  clients: ClientEntry[];
}

export class ManagementError extends Error {
  override readonly name = "ManagementError";
}

const KNOWN = new Set(["TITLE", "TIME", "HEADER", "CLIENT_LIST", "ROUTING_TABLE", "GLOBAL_STATS"]);

function count(text: string | undefined, what: string): number {
  if (text === undefined || !/^[0-9]{1,20}$/.test(text)) throw new ManagementError(`status 2: ${what} ${JSON.stringify(text)} is not a number`);
  return Number(text);
}

/** Parses the lines of a `status 2` answer (without END). */
export function parseStatus(lines: readonly string[]): ServerStatus {
  let title = "";
  const clients: ClientEntry[] = [];
  for (const line of lines) {
    if (line.startsWith(">") || line === "") continue;
    const f = line.split(",");
    const kind = f[0] ?? "";
    if (!KNOWN.has(kind)) throw new ManagementError(`status 2: unexpected line ${JSON.stringify(line.slice(0, 80))}`);
    if (kind === "TITLE") title = f.slice(1).join(",");
    if (kind !== "CLIENT_LIST") continue;
    // CLIENT_LIST,CN,Real Address,Virtual Address,Virtual IPv6 Address,Bytes Received,Bytes Sent,Connected Since,Connected Since (time_t),...
    if (f.length < 9) throw new ManagementError(`status 2: short CLIENT_LIST line ${JSON.stringify(line.slice(0, 80))}`);
    clients.push({
      commonName: f[1]!,
      realAddress: f[2]!,
      virtualAddress: f[3]!,
      bytesReceived: count(f[5], "bytes received"),
      bytesSent: count(f[6], "bytes sent"),
      connectedSince: count(f[8], "connected since"),
    });
  }
  return { title, clients };
}

/**
 * One connection to a server's management socket, kept open (OpenVPN serves one management client at a
 * time): `status()` asks for `status 2` over it, one question at a time, and `onClose` tells at once when
 * the connection ends, e.g. because the server died.
 */
export class ManagementConnection {
  private readonly socket: Socket;
  private buffer = "";
  private lines: string[] = [];
  private pending: { resolve: (lines: string[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;

  constructor(
    readonly path: string,
    onClose: (why: string) => void = () => undefined,
  ) {
    this.socket = connect(path);
    this.socket.setEncoding("utf8");
    this.socket.on("error", (err) => this.end(`management socket ${path}: ${err.message}`, onClose));
    this.socket.on("close", () => this.end(`management socket ${path} closed`, onClose));
    this.socket.on("data", (chunk: string) => this.read(chunk));
  }

  get closed(): boolean {
    return this.ended;
  }

  private end(why: string, onClose: (why: string) => void): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.destroy();
    this.fail(new ManagementError(why));
    onClose(why);
  }

  private fail(err: Error): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    clearTimeout(p.timer);
    p.reject(err);
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length + this.lines.reduce((n, l) => n + l.length, 0) > MAX_STATUS_BYTES) {
      this.buffer = "";
      this.lines = [];
      return this.fail(new ManagementError(`status from ${this.path} exceeds ${MAX_STATUS_BYTES} bytes`));
    }
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      // The greeting and other notifications start with ">"; outside a question they are all there is.
      if (line.startsWith(">") || !this.pending) continue;
      if (line !== "END") {
        this.lines.push(line);
        continue;
      }
      const p = this.pending;
      const lines = this.lines;
      this.pending = undefined;
      this.lines = [];
      clearTimeout(p.timer);
      p.resolve(lines);
    }
  }

  /** `status 2`, parsed. */
  async status(timeoutMs = STATUS_TIMEOUT_MS): Promise<ServerStatus> {
    return parseStatus(await this.ask("status 2", timeoutMs));
  }

  /** The client's connection state (`state`): CONNECTING, WAIT, AUTH, GET_CONFIG, ASSIGN_IP, CONNECTED, RECONNECTING, EXITING... */
  async state(timeoutMs = STATUS_TIMEOUT_MS): Promise<string> {
    const lines = await this.ask("state", timeoutMs);
    const state = lines.at(-1)?.split(",")[1];
    if (!state || !/^[A-Z_]{1,32}$/.test(state)) throw new ManagementError(`state: unexpected answer ${JSON.stringify(lines.join("|").slice(0, 80))}`);
    return state;
  }

  /**
   * One command whose answer ends with END, rejected after timeoutMs (the connection is then closed: a late
   * answer must not be taken for the next question).
   */
  private ask(command: string, timeoutMs: number): Promise<string[]> {
    const ask = () =>
      new Promise<string[]>((resolve, reject) => {
        if (this.ended) return reject(new ManagementError(`management socket ${this.path} is closed`));
        const timer = setTimeout(() => {
          this.fail(new ManagementError(`no ${command.split(" ")[0]} from ${this.path} within ${timeoutMs} ms`));
          this.close();
        }, timeoutMs);
        this.pending = { resolve, reject, timer };
        this.lines = [];
        this.socket.write(`${command}\n`);
      });
    const next = this.queue.then(ask, ask);
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    if (this.ended) return;
    this.socket.end("quit\n");
    this.socket.destroy();
  }
}

/** Asks the server behind `socketPath` for `status 2` once; rejects after timeoutMs or on a malformed answer. */
export async function queryStatus(socketPath: string, timeoutMs = STATUS_TIMEOUT_MS): Promise<ServerStatus> {
  const c = new ManagementConnection(socketPath);
  try {
    return await c.status(timeoutMs);
  } finally {
    c.close();
  }
}
