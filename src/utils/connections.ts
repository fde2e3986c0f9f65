// Every TCP connection of a server, also one still in its TLS handshake, which Node's
// closeAllConnections does not know yet: a server's close cuts them all at once instead of waiting
// for their handshake timeout (120 s by default for https).
import type { Server, Socket } from "node:net";

export interface Connections {
  /** Destroys every open connection of the server. */
  destroyAll(): void;
  /** Stops the server listening and cuts every connection (HTTP's too); resolves once the server is closed. */
  close(): Promise<void>;
  readonly size: number;
}

export function trackConnections(server: Server): Connections {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  const destroyAll = (): void => {
    for (const s of sockets) s.destroy();
  };
  return {
    destroyAll,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      destroyAll();
      return closed;
    },
    get size() {
      return sockets.size;
    },
  };
}
