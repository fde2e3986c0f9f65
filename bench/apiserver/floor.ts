// The floor under a create: Node's TLS and HTTP/2 stack alone on this machine. A bare server (its own
// process, node:http2's compatibility API, as the API server serves) parses each POSTed ConfigMap,
// sets a uid and answers it with 201; no authentication, storage or API logic. Its rate and CPU per
// request, measured with the phases' clients and sessions, are what an API server in Node cannot go
// below: the rest of a create's CPU is ours to cut (docs/high-availability.md#the-floor).
import { rate } from "../support/stats.ts";
import { startBareServer } from "./bare-server.ts";
import { processCpuMs } from "./phases.ts";

const SERVER = `
const http2 = require("node:http2");
const { key, cert } = JSON.parse(process.env.BARE_TLS);
const server = http2.createSecureServer({ key, cert, allowHTTP1: true });
server.on("request", (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const obj = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    obj.metadata.uid = "00000000-0000-0000-0000-000000000000";
    const body = JSON.stringify(obj);
    res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
`;

export interface FloorFigures {
  requestsPerSec: number;
  serverCpuMsPerRequest: number;
  clientCpuMsPerRequest: number;
}

/** Requests/s and CPU per request of the bare stack, `clients` in flight as streams of sessions of `clientsPerSession`. */
export async function measureFloor(clients: number, clientsPerSession: number, durationMs: number): Promise<FloorFigures> {
  const server = await startBareServer("floor server", SERVER, {}, Math.ceil(clients / clientsPerSession));
  try {
    await rate(clients, durationMs / 4, server.call); // warm-up
    const serverBefore = processCpuMs(server.pid);
    const clientBefore = process.cpuUsage();
    let n = 0;
    const started = performance.now();
    await rate(clients, durationMs, async () => {
      await server.call();
      n++;
    });
    const ms = performance.now() - started;
    const client = process.cpuUsage(clientBefore);
    const serverMs = processCpuMs(server.pid) - serverBefore;
    return { requestsPerSec: (n * 1000) / ms, serverCpuMsPerRequest: serverMs / Math.max(1, n), clientCpuMsPerRequest: (client.user + client.system) / 1000 / Math.max(1, n) };
  } finally {
    await server.stop();
  }
}
