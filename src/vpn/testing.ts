// Loopback helpers for the VPN proxies' tests: an echo server that answers a half-close with "bye",
// raw exchanges that collect everything until the peer closes, and a port nothing listens on.
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";

/** Echoes bytes; on the client's FIN writes "bye" and ends. Resolves with the server and its port. */
export async function echoServer(host = "127.0.0.1"): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
    s.on("data", (c) => s.write(c));
    s.on("end", () => s.end("bye"));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** A port that was free a moment ago (connecting to it is refused). */
export async function closedPort(host = "127.0.0.1"): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, host, r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Conversation {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves once the socket closed, with everything received. */
  closed: Promise<string>;
  /** Resolves once `text` has been received. */
  until(text: string): Promise<string>;
}

export function open(port: number, host = "127.0.0.1"): Conversation {
  const socket = connect({ port, host, allowHalfOpen: true });
  let data = "";
  const waiters: { text: string; resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (data.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(data);
      }
    }
  };
  socket.on("data", (c: Buffer) => {
    data += c.toString("latin1");
    check();
  });
  socket.on("error", () => undefined);
  // Half-open only from our side: the peer's FIN ends the conversation.
  socket.on("end", () => socket.end());
  const closed = new Promise<string>((resolve) =>
    socket.on("close", () => {
      for (const w of waiters.splice(0)) w.reject(new Error(`closed before ${JSON.stringify(w.text)}; got ${JSON.stringify(data)}`));
      resolve(data);
    }),
  );
  return {
    socket,
    received: () => data,
    closed,
    until: (text) =>
      new Promise((resolve, reject) => {
        waiters.push({ text, resolve, reject });
        check();
        if (socket.closed && waiters.length > 0) reject(new Error(`closed before ${JSON.stringify(text)}`));
      }),
  };
}

/** Sends `raw` and returns everything received until the peer closes. */
export function exchange(port: number, raw: string | Buffer, host = "127.0.0.1"): Promise<string> {
  const c = open(port, host);
  c.socket.write(raw);
  return c.closed;
}
