// Socket helpers of the two proxies: copying bytes both ways between two sockets (both opened with
// allowHalfOpen: a FIN from one side ends the other's writing side, and a reset, error or full close of
// either destroys both), and listening with the bind error as a rejection.
import type { AddressInfo, Server, Socket } from "node:net";

/** Starts `server` listening; rejects with the bind error (address in use, ...). */
export async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

export interface PipeCounters {
  /** Bytes read from `a` and written to `b`. */
  aToB?: (n: number) => void;
  bToA?: (n: number) => void;
}

export function splice(a: Socket, b: Socket, counters: PipeCounters = {}): Promise<void> {
  return new Promise((resolve) => {
    let closed = 0;
    const onClose = () => {
      a.destroy();
      b.destroy();
      if (++closed === 2) resolve();
    };
    if (counters.aToB) a.on("data", (c: Buffer) => counters.aToB?.(c.length));
    if (counters.bToA) b.on("data", (c: Buffer) => counters.bToA?.(c.length));
    a.pipe(b);
    b.pipe(a);
    for (const s of [a, b]) {
      s.on("error", () => undefined);
      s.once("close", onClose);
    }
    a.resume();
    b.resume();
  });
}
