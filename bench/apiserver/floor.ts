// The floor under a create: Node's TLS and HTTP/2 stack alone on this machine. A bare server (its own
// process, node:http2's compatibility API, as the API server serves) parses each POSTed ConfigMap,
// sets a uid and answers it with 201; no authentication, storage or API logic. Its rate and CPU per
// request, measured with the phases' clients and sessions, are what an API server in Node cannot go
// below: the rest of a create's CPU is ours to cut (docs/high-availability.md#the-floor).
import { spawn } from "node:child_process";
import { createCertificateAuthority, issueServingCertificate } from "../../src/apiserver/certs/issue.ts";
import { rate } from "../support/stats.ts";
import { expectStatus, h2Caller } from "./client.ts";
import { processCpuMs } from "./phases.ts";

const SERVER = `
const http2 = require("node:http2");
const { key, cert } = JSON.parse(process.env.FLOOR_TLS);
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
  const ca = await createCertificateAuthority();
  const tls = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, FLOOR_TLS: JSON.stringify({ key: tls.keyPem, cert: tls.certPem }) } });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once("exit", (code) => reject(new Error(`floor server exited with ${code}`)));
    });
    const caller = h2Caller({ server: `https://127.0.0.1:${port}`, caPem: ca.certPem }, Math.ceil(clients / clientsPerSession));
    let seq = 0;
    const call = async () => {
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `f-${seq++}`, namespace: "bench" }, data: { k: "v" } };
      expectStatus(await caller.call("POST", "/api/v1/namespaces/bench/configmaps", body), [201], "floor server");
    };
    await rate(clients, durationMs / 4, call); // warm-up
    const serverBefore = processCpuMs(child.pid!);
    const clientBefore = process.cpuUsage();
    let n = 0;
    const started = performance.now();
    await rate(clients, durationMs, async () => {
      await call();
      n++;
    });
    const ms = performance.now() - started;
    const client = process.cpuUsage(clientBefore);
    const serverMs = processCpuMs(child.pid!) - serverBefore;
    caller.close();
    return { requestsPerSec: (n * 1000) / ms, serverCpuMsPerRequest: serverMs / Math.max(1, n), clientCpuMsPerRequest: (client.user + client.system) / 1000 / Math.max(1, n) };
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
  }
}
