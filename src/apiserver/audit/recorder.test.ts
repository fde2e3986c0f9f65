import assert from "node:assert/strict";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { newForbidden, newInternalError } from "../../apimachinery/errors.ts";
import { parseRequestInfo } from "../endpoints/requestinfo.ts";
import type { AuditSink } from "./log.ts";
import { parsePolicy } from "./policy.ts";
import { type AuditEvent, Auditor, MAX_CAPTURE, type RequestAudit } from "./recorder.ts";

const written: AuditEvent[] = [];
const sink: AuditSink = { write: (e) => (written.push(e as AuditEvent), true), flush: async () => {}, close: async () => {}, dropped: 0 };
const auditor = new Auditor(
  parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
  - level: RequestResponse
    resources: [{ group: "", resources: [configmaps] }]
  - level: Metadata
`),
  sink,
);

/** How the test server answers: the handler gets the request's audit and does what the case needs. */
let answer: (req: IncomingMessage, res: ServerResponse, audit: RequestAudit | undefined) => void = () => {};
let server: Server;
let port = 0;
before(async () => {
  server = createServer((req, res) => {
    const audit = auditor.begin({ req, res, id: String(req.headers["x-request-id"]), info: parseRequestInfo(req.method ?? "GET", req.url ?? "/"), user: { username: "alice", groups: ["devs"] }, receivedAt: Date.now() });
    answer(req, res, audit);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function eventsOf(id: string, n: number): Promise<AuditEvent[]> {
  for (let i = 0; i < 100; i++) {
    const mine = written.filter((e) => e.auditID === id);
    if (mine.length >= n) return mine;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no ${n} events for ${id}: ${JSON.stringify(written.filter((e) => e.auditID === id))}`);
}

/** Reads the body as the resource handler would (a "data" listener), then answers. */
function readThen(then: (body: string, res: ServerResponse, audit: RequestAudit | undefined) => void) {
  return (req: IncomingMessage, res: ServerResponse, audit: RequestAudit | undefined) => {
    setTimeout(() => {
      // attached late, as after asynchronous authentication: the audit must still see the body
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => then(Buffer.concat(chunks).toString(), res, audit));
    }, 5);
  };
}

void describe("RequestAudit", () => {
  void it("an unexpected error is a Panic event with a 500 status; a Status error is ResponseComplete", async () => {
    answer = readThen((_b, res, audit) => {
      audit?.failed(new Error("boom"));
      res.writeHead(500).end(JSON.stringify(newInternalError("boom").toStatus()));
    });
    await call("GET", "/api/v1/namespaces/ns/pods/p", undefined, { "x-request-id": "panic" });
    const [, panic] = await eventsOf("panic", 2);
    assert.equal(panic?.stage, "Panic");
    assert.equal(panic?.responseStatus?.code, 500);
    assert.equal(panic?.responseStatus?.status, "Failure");

    answer = readThen((_b, res, audit) => {
      const err = newForbidden({ group: "", resource: "pods" }, "p", "no");
      audit?.failed(err);
      res.writeHead(403).end(JSON.stringify(err.toStatus()));
    });
    await call("GET", "/api/v1/namespaces/ns/pods/p", undefined, { "x-request-id": "denied" });
    const [, denied] = await eventsOf("denied", 2);
    assert.equal(denied?.stage, "ResponseComplete");
    assert.equal(denied?.responseStatus?.reason, "Forbidden");
    assert.equal(denied?.annotations?.["authorization.k8s.io/decision"], "forbid");
  });

  void it("bodies: read however late, managed fields left out, beyond MAX_CAPTURE left out and annotated", async () => {
    answer = readThen((body, res) => res.writeHead(201).end(body));
    const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", managedFields: [{ manager: "x" }] }, data: { a: "1" } };
    await call("POST", "/api/v1/namespaces/ns/configmaps", JSON.stringify(obj), { "x-request-id": "small" });
    const [, small] = await eventsOf("small", 2);
    assert.deepEqual(small?.requestObject, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } });
    assert.deepEqual(small?.responseObject, small?.requestObject);
    assert.equal(small?.objectRef?.name, "c");
    assert.equal(small?.annotations?.["audit.k8s.io/truncated"], undefined);

    const big = { ...obj, metadata: { name: "big" }, data: { a: "x".repeat(MAX_CAPTURE) } };
    await call("POST", "/api/v1/namespaces/ns/configmaps", JSON.stringify(big), { "x-request-id": "big" });
    const [, bigEvent] = await eventsOf("big", 2);
    assert.equal(bigEvent?.requestObject, undefined);
    assert.equal(bigEvent?.responseObject, undefined);
    assert.equal(bigEvent?.annotations?.["audit.k8s.io/truncated"], "true");
    assert.ok(JSON.stringify(bigEvent).length < 4096, "the event stays small");
  });

  void it("source IPs: forwarded addresses that are IPs (bounded), X-Real-Ip, then the connection's; junk ignored", async () => {
    answer = (_req, res) => res.writeHead(200).end("{}");
    const xff = ["203.0.113.7", "not-an-ip", " 2001:db8::1 ", ...Array.from({ length: 40 }, (_, i) => `10.0.0.${i}`)].join(",");
    await call("GET", "/healthz", undefined, { "x-request-id": "ips", "x-forwarded-for": xff, "x-real-ip": "198.51.100.2" });
    const [, e] = await eventsOf("ips", 2);
    assert.equal(e?.sourceIPs[0], "203.0.113.7");
    assert.equal(e?.sourceIPs[1], "2001:db8::1");
    assert.ok((e?.sourceIPs.length ?? 0) <= 18, `at most 16 forwarded addresses: ${e?.sourceIPs.length}`);
    assert.deepEqual(e?.sourceIPs.slice(-2), ["198.51.100.2", "127.0.0.1"]);
    assert.equal(e?.objectRef, undefined, "non-resource requests have no objectRef");
  });
});
