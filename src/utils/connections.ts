// Every TCP connection of a server, also one still in its TLS handshake, which Node's
// closeAllConnections does not know yet: a server's close() cuts them all at once instead of waiting
// for their handshake timeout (120 s by default for https).
import type { Server, Socket } from "node:net";

export interface Connections {
  /** Destroys every open connection of the server. */
  destroyAll(): void;
  readonly size: number;
}

export function trackConnections(server: Server): Connections {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  return {
    destroyAll: () => {
      for (const s of sockets) s.destroy();
    },
    get size() {
      return sockets.size;
    },
  };
}
