// A fake OpenVPN management interface for tests: a unix socket that greets, answers `status 2` with the
// lines the test sets, and counts the queries.
import { mkdtemp, rm } from "node:fs/promises";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface FakeManagement {
  path: string;
  /** The lines answered to `status 2` (END is appended); undefined: never answer. */
  status: string[] | undefined;
  /** The client state answered to `state`, e.g. "CONNECTED". */
  state: string;
  queries: number;
  /** Ends every connection at once, as a dying server does. */
  kill(): void;
  close(): Promise<void>;
}

export function statusLines(clients: { cn: string; virtual?: string; since?: number; rx?: number; tx?: number }[]): string[] {
  return [
    "TITLE,OpenVPN 2.6.3 x86_64-pc-linux-gnu",
    "TIME,2026-01-01 00:00:00,1767225600",
    "HEADER,CLIENT_LIST,Common Name,Real Address,Virtual Address,Virtual IPv6 Address,Bytes Received,Bytes Sent,Connected Since,Connected Since (time_t),Username,Client ID,Peer ID,Data Channel Cipher",
    ...clients.map((c) => `CLIENT_LIST,${c.cn},198.19.0.3:40000,${c.virtual ?? "192.168.123.2"},,${c.rx ?? 10},${c.tx ?? 20},2026-01-01 00:00:00,${c.since ?? 1767225600},UNDEF,0,0,AES-256-GCM`),
    "HEADER,ROUTING_TABLE,Virtual Address,Common Name,Real Address,Last Ref,Last Ref (time_t)",
    "GLOBAL_STATS,Max bcast/mcast queue length,0",
  ];
}

export async function fakeManagement(): Promise<FakeManagement> {
  const dir = await mkdtemp(join(tmpdir(), "vpn-mgmt-"));
  const path = join(dir, "management.sock");
  const sockets = new Set<Socket>();
  const state: FakeManagement = { path, status: statusLines([]), state: "CONNECTING", queries: 0, kill: () => sockets.forEach((s) => s.destroy()), close: async () => undefined };
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
    s.write(">INFO:OpenVPN Management Interface Version 5 -- type 'help' for more info\r\n");
    s.on("data", (d) => {
      if (d.toString() === "state\n") return void s.write(`1767225600,${state.state},SUCCESS,192.168.123.2,198.19.0.1,8132,,\r\nEND\r\n`);
      if (!d.toString().includes("status 2")) return;
      state.queries++;
      if (state.status) s.write([...state.status, "END", ""].join("\r\n"));
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  state.close = async () => {
    state.kill();
    await new Promise<void>((r) => {
      server.close(() => r());
    });
    await rm(dir, { recursive: true, force: true });
  };
  return state;
}
