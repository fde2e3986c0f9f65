// OpenVPN's management interface (a unix socket): `status 2` and its parsing (docs/reversed-vpn.md#health).
// The answer is TITLE, TIME, HEADER, CLIENT_LIST, ROUTING_TABLE and GLOBAL_STATS lines, then END; any
// other line type is an error. Real-time notifications (`>...`) may come in between and are skipped.
import { connect } from "node:net";

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

/** Asks the server behind `socketPath` for `status 2`; rejects after timeoutMs or on a malformed answer. */
export function queryStatus(socketPath: string, timeoutMs = STATUS_TIMEOUT_MS): Promise<ServerStatus> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = "";
    const lines: string[] = [];
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new ManagementError(`no status from ${socketPath} within ${timeoutMs} ms`)), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write("status 2\n"));
    socket.on("error", (err) => fail(new ManagementError(`management socket ${socketPath}: ${err.message}`)));
    socket.on("close", () => fail(new ManagementError(`management socket ${socketPath} closed before END`)));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_STATUS_BYTES) return fail(new ManagementError(`status from ${socketPath} exceeds ${MAX_STATUS_BYTES} bytes`));
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        // The greeting and other notifications start with ">".
        if (line !== "END") {
          lines.push(line);
          continue;
        }
        clearTimeout(timer);
        socket.removeAllListeners("close");
        socket.end("quit\n");
        try {
          resolve(parseStatus(lines));
        } catch (err) {
          reject(err as Error);
        }
        return;
      }
    });
  });
}
