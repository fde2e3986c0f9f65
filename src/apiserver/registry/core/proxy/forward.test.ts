import assert from "node:assert/strict";
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect as h2connect, createServer as createH2Server } from "node:http2";
import { type AddressInfo, connect } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { StatusError, toStatusError } from "../../../../apimachinery/errors.ts";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../certs/issue.ts";
import { type ForwardOptions, forward } from "./forward.ts";
import type { ProxyLocation } from "./location.ts";
import { pollFor } from "../../../../utils/poll.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const seen: Seen[] = [];
let closedUpstreams = 0;
/** The target: echoes what it got as JSON, or streams `n` bytes for /big?n, or never answers /hang. */
const target = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
    if (req.url?.startsWith("/hang")) return;
    if (req.url?.startsWith("/big")) {
      const total = Number(req.url.split("?")[1]);
      const piece = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.on("close", () => closedUpstreams++);
      const more = () => {
        while (sent < total) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once("drain", more);
        }
        res.end();
      };
      return more();
    }
    res.writeHead(201, { "content-type": "application/json", "x-target": "yes", connection: "close, x-hop", "x-hop": "dropped" });
    res.end(JSON.stringify(seen.at(-1)));
  });
});

/** The front: forwards every request to the location and options the test set, errors as "<code> <message>". */
let location: ProxyLocation;
let options: ForwardOptions = {};
const maxBodyBytes = 1024;
const front: Server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  forward(location, { req, res, path: url.pathname, rawQuery: url.search.slice(1), maxBodyBytes }, options).catch((err: unknown) => {
    const se = toStatusError(err);
    if (!res.headersSent) res.writeHead(se.code, { connection: "close" }).end(`${se.code} ${se.message}`);
  });
});

let targetPort = 0;
let frontPort = 0;
before(async () => {
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  targetPort = (target.address() as AddressInfo).port;
  frontPort = (front.address() as AddressInfo).port;
});
after(() => {
  target.closeAllConnections();
  target.close();
  front.closeAllConnections();
  front.close();
});

function call(path: string, o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {}): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...o.headers, ...(o.body !== undefined && !o.chunked ? { "content-length": String(Buffer.byteLength(o.body)) } : {}) };
    const req = request({ host: "127.0.0.1", port: frontPort, path, method: o.method ?? "GET", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

const direct = (): ProxyLocation => ({ scheme: "http", host: "127.0.0.1", port: targetPort });

test("method, path, query, body and headers reach the target without the client's credentials; the answer comes back without hop-by-hop headers", async () => {
  location = direct();
  options = {};
  const res = await call("/a/b%2Fc/?x=1&y=2", { method: "POST", body: "hello", headers: { authorization: "Bearer secret", "impersonate-user": "admin", "x-custom": "kept", "x-forwarded-for": "10.0.0.9" } });
  assert.equal(res.status, 201);
  assert.equal(res.headers["x-target"], "yes");
  assert.equal(res.headers["x-hop"], undefined);
  const got = JSON.parse(res.body.toString()) as Seen;
  assert.equal(got.method, "POST");
  assert.equal(got.url, "/a/b%2Fc/?x=1&y=2");
  assert.equal(got.body, "hello");
  assert.equal(got.headers.authorization, undefined);
  assert.equal(got.headers["impersonate-user"], undefined);
  assert.equal(got.headers["x-custom"], "kept");
  assert.equal(got.headers["x-forwarded-for"], "10.0.0.9, 127.0.0.1");
});

test("over HTTP/2: the target gets Host from :authority and no pseudo-headers; the answer comes back without connection headers", async () => {
  location = direct();
  options = {};
  // The front again, as an HTTP/2 server (cleartext): the same handler through node's compatibility request and response.
  const h2front = createH2Server((req, res) => {
    const url = new URL(req.url, "http://x");
    void forward(location, { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse, path: url.pathname, rawQuery: url.search.slice(1), maxBodyBytes }, options).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(toStatusError(err).code).end(String(err));
    });
  });
  await new Promise<void>((r) => h2front.listen(0, "127.0.0.1", r));
  const session = h2connect(`http://127.0.0.1:${(h2front.address() as AddressInfo).port}`);
  try {
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const st = session.request({ ":method": "POST", ":path": "/h2?x=1", ":authority": "api.example:6443", "x-custom": "kept" });
      let headers: Record<string, unknown> = {};
      let body = "";
      st.on("response", (h) => (headers = h));
      st.on("data", (c: Buffer) => (body += String(c)));
      st.on("end", () => resolve({ status: Number(headers[":status"]), headers, body }));
      st.on("error", reject);
      st.end("over-h2");
    });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.headers["x-target"], "yes");
    assert.equal(res.headers.connection, undefined);
    const got = JSON.parse(res.body) as Seen;
    assert.equal(got.url, "/h2?x=1");
    assert.equal(got.body, "over-h2");
    assert.equal(got.headers.host, "api.example:6443");
    assert.equal(got.headers["x-custom"], "kept");
    assert.deepEqual(Object.keys(got.headers).filter((k) => k.startsWith(":")), []);
    assert.equal(got.headers["x-forwarded-for"], "127.0.0.1");
  } finally {
    session.close();
    h2front.close();
  }
});

test("a large answer is streamed through completely", async () => {
  location = direct();
  options = {};
  const res = await call(`/big?${8 * 1024 * 1024}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.length, 8 * 1024 * 1024);
});

test("a body beyond the limit is 413, declared or chunked; a declared one never reaches the target", async () => {
  location = direct();
  options = {};
  const before = seen.length;
  const declared = await call("/x", { method: "PUT", body: Buffer.alloc(2048) });
  assert.equal(declared.status, 413);
  assert.equal(seen.length, before);
  const chunked = await call("/x", { method: "PUT", body: Buffer.alloc(4096), chunked: true });
  assert.equal(chunked.status, 413);
  assert.match(chunked.body.toString(), /Request entity too large: limit is 1024/);
});

test("an unreachable target is 503 'error trying to reach service' with the dial error", async () => {
  const unused = createServer();
  await new Promise<void>((r) => unused.listen(0, "127.0.0.1", r));
  const port = (unused.address() as AddressInfo).port;
  await new Promise<void>((r) => unused.close(() => r()));
  location = { scheme: "http", host: "127.0.0.1", port };
  options = {};
  const res = await call("/");
  assert.equal(res.status, 503);
  assert.match(res.body.toString(), new RegExp(`^503 error trying to reach service: dial tcp 127.0.0.1:${port}: connect ECONNREFUSED`));
});

test("with a dialer the stream comes from it; its refusal is 503 with the proxy's words", async () => {
  const dialled: string[] = [];
  location = { scheme: "http", host: "10.250.0.7", port: 8080 };
  options = {
    dial: (host, port) => {
      dialled.push(`${host}:${port}`);
      if (port === 8080) return Promise.resolve(connect({ host: "127.0.0.1", port: targetPort }) as Duplex);
      return Promise.reject(new StatusError(500, "InternalError", `proxy error from 10.1.255.2:9443 while dialing ${host}:${port}, code 503: 503 Service Unavailable`));
    },
  };
  const ok = await call("/via");
  assert.equal(ok.status, 201);
  assert.equal((JSON.parse(ok.body.toString()) as Seen).url, "/via");
  location = { scheme: "http", host: "10.250.0.7", port: 8081 };
  const refused = await call("/via");
  assert.equal(refused.status, 503);
  assert.equal(refused.body.toString(), "503 error trying to reach service: proxy error from 10.1.255.2:9443 while dialing 10.250.0.7:8081, code 503: 503 Service Unavailable");
  assert.deepEqual(dialled, ["10.250.0.7:8080", "10.250.0.7:8081"]);
});

test("a target that does not answer in time is 503 'timeout awaiting response headers'", async () => {
  location = direct();
  options = { timeoutMs: 300 };
  const res = await call("/hang");
  assert.equal(res.status, 503);
  assert.match(res.body.toString(), /error trying to reach service: timeout awaiting response headers/);
});

test("a client that goes away mid-answer closes the target's side", async () => {
  location = direct();
  options = {};
  const closedBefore = closedUpstreams;
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: frontPort, path: `/big?${512 * 1024 * 1024}`, agent: false }, (res) => {
      res.once("data", () => req.destroy());
    });
    req.on("error", () => undefined);
    req.on("close", () => resolve());
    req.on("timeout", reject);
    req.end();
  });
  await pollFor("the upstream connection to close", () => closedUpstreams !== closedBefore, { intervalMs: 20 });
  assert.equal(closedUpstreams, closedBefore + 1);
});

test("https: the kubelet gets the client certificate and must present one of the kubelet CA; other targets are not verified", async () => {
  const ca = await createCertificateAuthority({ commonName: "kubelet-ca" });
  const other = await createCertificateAuthority({ commonName: "elsewhere" });
  const serving = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  const foreign = await issueServingCertificate(other, { hosts: ["127.0.0.1"] });
  const client = await issueClientCertificate(ca, { commonName: "kube-apiserver-kubelet-client" });
  let peer = "";
  const handler = (req: IncomingMessage, res: import("node:http").ServerResponse) => {
    peer = ((req.socket as TLSSocket).getPeerCertificate()?.subject as { CN?: string } | undefined)?.CN ?? "";
    res.end("kubelet");
  };
  const kubelet = createHttpsServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, handler);
  const impostor = createHttpsServer({ cert: foreign.certPem, key: foreign.keyPem }, handler);
  await new Promise<void>((r) => kubelet.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => impostor.listen(0, "127.0.0.1", r));
  try {
    options = { kubeletTls: { certPem: client.certPem, keyPem: client.keyPem, caPem: ca.certPem } };
    location = { scheme: "https", host: "127.0.0.1", port: (kubelet.address() as AddressInfo).port, kubelet: true };
    const ok = await call("/pods");
    assert.equal(ok.body.toString(), "kubelet");
    assert.equal(peer, "kube-apiserver-kubelet-client");
    location = { scheme: "https", host: "127.0.0.1", port: (impostor.address() as AddressInfo).port, kubelet: true };
    const refused = await call("/pods");
    assert.equal(refused.status, 503);
    assert.match(refused.body.toString(), /error trying to reach service: .*certificate/i);
    location = { scheme: "https", host: "127.0.0.1", port: (impostor.address() as AddressInfo).port };
    assert.equal((await call("/pods")).body.toString(), "kubelet");
  } finally {
    kubelet.close();
    impostor.close();
  }
});
