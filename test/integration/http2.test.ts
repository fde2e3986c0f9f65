// HTTP/2 in the API server (docs/kubernetes-api.md#http2): ALPN offers h2 and http/1.1; requests and
// watches share one session; the client certificate authenticates over h2, and the audit log names
// its user and address; kubectl negotiates h2;
// HTTP/1.1 upgrades still work; a stalled watch stream is cut at its watch bound while another
// stream of the same session goes on, and one paused within the bound resumes; an oversized header
// list is refused without harm; an answer goes out as one HEADERS and one DATA frame.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, sensitiveHeaders } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { pollFor } from "../../src/utils/poll.ts";
import { type InProcessServer, startInProcessApiServer } from "../support/inprocess.ts";
import { readKubeconfig } from "../support/kubeconfig.ts";
import { kubectlFor, oldestKubectl, latestKubectl, skipUnlessKubectl } from "../support/kubectl.ts";
import { h2Request, h2Session, h2Watch } from "../support/http2.ts";
import { frameKinds as kinds, h2RequestFrames } from "../support/http2-frames.ts";
import { rawClient } from "../support/http.ts";

/** A watch may hold this much undelivered (the server's --watch-buffer-bytes). */
const WATCH_BOUND = 256 * 1024;

let s: InProcessServer;
const dir = mkdtempSync(join(tmpdir(), "http2-"));
const auditLog = join(dir, "audit.log");

before(async () => {
  const policy = join(dir, "policy.yaml");
  writeFileSync(policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Request\n    resources: [{ group: \"\", resources: [configmaps] }]\n    namespaces: [audited]\n  - level: None\n");
  s = await startInProcessApiServer({ flags: ["--watch-buffer-bytes", String(WATCH_BOUND), "--audit-policy-file", policy, "--audit-log-path", auditLog] });
});

after(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cms = (ns = "default") => `/api/v1/namespaces/${ns}/configmaps`;

/** The server's request counts by protocol, from /metrics (read over HTTP/2). */
async function protocolCounts(): Promise<Record<string, number>> {
  const { session } = await h2Session(s.server.adminKubeconfigPath);
  try {
    const m = await h2Request(session, "GET", "/metrics");
    const out: Record<string, number> = {};
    for (const [, p, n] of m.body.matchAll(/^gardener_apiserver_requests_by_protocol_total\{protocol="([^"]+)"\} (\d+)$/gm)) out[p!] = Number(n);
    return out;
  } finally {
    session.close();
  }
}

/** Creates an object over a session of its own (the admin's). */
async function create(path: string, body: unknown): Promise<void> {
  const { session } = await h2Session(s.server.adminKubeconfigPath);
  try {
    const r = await h2Request(session, "POST", path, { body });
    assert.equal(r.status, 201, r.body);
  } finally {
    session.close();
  }
}

void describe("HTTP/2", () => {
  it("negotiates h2 and serves create, get, list and watch as streams of one session", async () => {
    const { session } = await h2Session(s.server.adminKubeconfigPath);
    try {
      assert.equal(session.alpnProtocol, "h2");
      const w = h2Watch(session, `${cms()}?watch=true`);
      const headers = await w.started;
      assert.equal(headers[":status"], 200);
      assert.equal(headers["transfer-encoding"], undefined);
      const created = await h2Request(session, "POST", cms(), { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-h2" }, data: { a: "1" } } });
      assert.equal(created.status, 201, created.body);
      const got = await h2Request(session, "GET", `${cms()}/over-h2`);
      assert.equal(got.status, 200);
      assert.equal(got.json<{ data: Record<string, string> }>().data.a, "1");
      const list = await h2Request(session, "GET", cms());
      assert.ok(list.json<{ items: { metadata: { name: string } }[] }>().items.some((i) => i.metadata.name === "over-h2"));
      await pollFor("the watch stream to deliver the create", () => w.events.some((e) => e.type === "ADDED" && e.object.metadata.name === "over-h2"));
      w.stream.close();
    } finally {
      session.close();
    }
  });

  it("answers in one HEADERS frame, the body in one DATA frame and an empty one ending the stream, without trailers, the Audit-Id never indexed; HEAD in HEADERS alone", async () => {
    const kc = s.server.adminKubeconfigPath;
    const notFound = /^apiserver_request_total\{verb="GET",group="",resource="configmaps",subresource="",code="404"\} (\d+)$/m;
    const count404 = async () => {
      const { session } = await h2Session(kc);
      try {
        return Number(notFound.exec((await h2Request(session, "GET", "/metrics")).body)?.[1] ?? 0);
      } finally {
        session.close();
      }
    };
    const created = await h2RequestFrames(kc, "POST", cms(), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "whole" }, data: { a: "1" } });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(kinds(created.frames), ["HEADERS", "DATA", "DATA+END"]);
    assert.equal(created.frames[1]!.length, Buffer.byteLength(created.body));
    assert.equal(created.frames[2]!.length, 0);
    assert.equal(created.headers["content-length"], String(Buffer.byteLength(created.body)));
    assert.equal(created.headers["content-type"], "application/json");
    assert.match(String(created.headers["audit-id"]), /^[0-9a-f-]{36}$/);
    assert.deepEqual(created.headers[sensitiveHeaders as unknown as string], ["audit-id"]);

    const head = await h2RequestFrames(kc, "HEAD", `${cms()}/whole`);
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    assert.deepEqual(kinds(head.frames), ["HEADERS+END"]);
    assert.ok(Number(head.headers["content-length"]) > 0);

    // An error is a Status, sent whole as well, and counted with its code.
    const before = await count404();
    const missing = await h2RequestFrames(kc, "GET", `${cms()}/not-there`);
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).reason, "NotFound");
    assert.deepEqual(kinds(missing.frames), ["HEADERS", "DATA", "DATA+END"]);
    await pollFor("the 404 in the request metrics", async () => (await count404()) === before + 1);
  });

  it("answers OpenAPI's not-modified and moved whole over h2: HEADERS alone", async () => {
    const kc = s.server.adminKubeconfigPath;
    const { session } = await h2Session(kc);
    let url: string;
    try {
      const index = (await h2Request(session, "GET", "/openapi/v3")).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
      url = index.paths["api/v1"]!.serverRelativeURL;
    } finally {
      session.close();
    }
    const doc = await h2RequestFrames(kc, "GET", url);
    assert.equal(doc.status, 200);
    const etag = String(doc.headers.etag);
    const same = await h2RequestFrames(kc, "GET", url, undefined, { "if-none-match": etag });
    assert.equal(same.status, 304);
    assert.deepEqual(kinds(same.frames), ["HEADERS+END"]);
    const stale = await h2RequestFrames(kc, "GET", "/openapi/v3/api/v1?hash=ABC");
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    assert.deepEqual(kinds(stale.frames), ["HEADERS+END"]);
  });

  it("authenticates the client certificate over h2, and a session without one as anonymous", async () => {
    const review = { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" };
    const admin = await h2Session(s.server.adminKubeconfigPath);
    const anonymous = await h2Session(s.server.adminKubeconfigPath, { anonymous: true });
    try {
      const mine = await h2Request(admin.session, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: review });
      assert.equal(mine.status, 201, mine.body);
      assert.equal(mine.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username, "system:admin");
      const theirs = await h2Request(anonymous.session, "GET", cms());
      assert.equal(theirs.status, 403, theirs.body);
      assert.match(theirs.body, /system:anonymous/);
    } finally {
      admin.session.close();
      anonymous.session.close();
    }
  });

  it("audits a request over h2 with the session's user and the connection's address", async () => {
    await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "audited" } });
    await create(cms("audited"), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "audited-over-h2" } });
    type Event = { verb: string; stage: string; user: { username: string }; sourceIPs: string[]; requestObject?: { metadata: { name: string } } };
    const events = () => (existsSync(auditLog) ? readFileSync(auditLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Event) : []);
    await pollFor("the create's audit event", () => events().some((e) => e.stage === "ResponseComplete" && e.requestObject?.metadata.name === "audited-over-h2"));
    const e = events().find((x) => x.stage === "ResponseComplete" && x.requestObject?.metadata.name === "audited-over-h2")!;
    assert.equal(e.verb, "create");
    assert.equal(e.user.username, "system:admin");
    assert.deepEqual(e.sourceIPs, ["127.0.0.1"]);
  });

  for (const version of [latestKubectl, oldestKubectl]) {
    it(`kubectl ${version} speaks HTTP/2 to the server`, { skip: skipUnlessKubectl(version) }, async () => {
      const before = await protocolCounts();
      const k = kubectlFor(s.server.adminKubeconfigPath, version);
      await k.ok(["create", "configmap", `by-kubectl-${version.replace(".", "-")}`, "--from-literal=a=1"]);
      await k.ok(["get", "configmaps"]);
      const after = await protocolCounts();
      // Discovery, the create and the get: all of them over h2; HTTP/1.1 saw none.
      assert.ok((after["HTTP/2.0"] ?? 0) - (before["HTTP/2.0"] ?? 0) >= 3, JSON.stringify({ before, after }));
      assert.equal(after["HTTP/1.1"] ?? 0, before["HTTP/1.1"] ?? 0, JSON.stringify({ before, after }));
    });
  }

  it("keeps HTTP/1.1 for clients that offer only it, upgrades (a WebSocket watch) included", async () => {
    const kc = readKubeconfig(s.server.adminKubeconfigPath);
    const url = new URL(s.server.url);
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: kc.caPem, cert: kc.certPem, key: kc.keyPem, ALPNProtocols: ["http/1.1"] });
    await new Promise<void>((resolve, reject) => socket.once("secureConnect", resolve).once("error", reject));
    assert.equal(socket.alpnProtocol, "http/1.1");
    socket.destroy();

    const before = await protocolCounts();
    const ws = new WebSocket(`${s.server.url.replace("https", "wss")}${cms()}?watch=true`, { ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
    const names: string[] = [];
    ws.on("message", (m: Buffer) => names.push((JSON.parse(m.toString("utf8")) as { object: { metadata: { name: string } } }).object.metadata.name));
    await new Promise<void>((resolve, reject) => ws.once("open", resolve).once("error", reject));
    await create(cms(), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-ws" } });
    await pollFor("the WebSocket watch to deliver the create", () => names.includes("over-ws"));
    ws.close();
    const after = await protocolCounts();
    assert.equal((after["HTTP/1.1"] ?? 0) - (before["HTTP/1.1"] ?? 0), 1, JSON.stringify({ before, after }));
  });

  it("cuts a watch stream its client stopped reading at the watch bound, while another stream of the session goes on", async () => {
    const { session } = await h2Session(s.server.adminKubeconfigPath);
    try {
      const ns = "stall";
      await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      const stalled = h2Watch(session, `${cms(ns)}?watch=true`);
      const reading = h2Watch(session, `${cms(ns)}?watch=true`);
      await Promise.all([stalled.started, reading.started]);
      stalled.stream.pause();
      // Six times 100 KiB: past the stalled stream's window (64 KiB) and then past its bound.
      const names = Array.from({ length: 6 }, (_, i) => `big-${i}`);
      const data = { d: "x".repeat(100 * 1024) };
      for (const name of names) {
        const r = await h2Request(session, "POST", cms(ns), { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data } });
        assert.equal(r.status, 201, r.body);
      }
      // The reading stream got every event, on the same connection, while the other one was stalled.
      await pollFor("the reading stream to deliver every create", () => names.every((n) => reading.events.some((e) => e.object.metadata.name === n)));
      // The stalled one was reset (CANCEL: the client knows it lost events), not left to grow.
      await pollFor("the stalled stream to be reset", () => stalled.stream.closed);
      assert.equal(stalled.stream.rstCode, constants.NGHTTP2_CANCEL);
      assert.ok(!reading.stream.closed);
      const again = await h2Request(session, "GET", `${cms(ns)}/big-5`);
      assert.equal(again.status, 200);
      reading.stream.close();
    } finally {
      session.close();
    }
  });

  it("resumes a watch stream whose client paused within the bound: the server waits for the window, then sends the rest", async () => {
    const { session } = await h2Session(s.server.adminKubeconfigPath);
    try {
      const ns = "pause";
      await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      const w = h2Watch(session, `${cms(ns)}?watch=true`);
      await w.started;
      w.stream.pause();
      // Two times 100 KiB: more than the stream's window (64 KiB), less than the watch bound.
      const data = { d: "x".repeat(100 * 1024) };
      for (const name of ["p-0", "p-1"]) await create(cms(ns), { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
      // The window is full: the rest waits on the server.
      await pollFor("the paused stream's window to fill", () => w.stream.readableLength >= 60 * 1024);
      w.stream.resume();
      await pollFor("both events after the pause", () => ["p-0", "p-1"].every((n) => w.events.some((e) => e.type === "ADDED" && e.object.metadata.name === n)));
      assert.ok(!w.stream.closed);
      w.stream.close();
    } finally {
      session.close();
    }
  });

  it("refuses a header list over the bound without harm to the server or the session", async () => {
    const { session } = await h2Session(s.server.adminKubeconfigPath);
    try {
      // The server's settings bind once the client acknowledged them (before that, node's default
      // of 64 KiB holds): a first exchange makes sure they do.
      assert.equal((await h2Request(session, "GET", "/readyz")).status, 200);
      const refused = await h2Request(session, "GET", cms(), { headers: { "x-big": "y".repeat(20 * 1024) } }).then(
        (r) => r.status,
        (err: Error) => err.message,
      );
      assert.match(String(refused), /NGHTTP2_ENHANCE_YOUR_CALM/);
      const ok = await h2Request(session, "GET", "/readyz");
      assert.equal(ok.status, 200);
    } finally {
      session.close();
    }
    // The same bound over HTTP/1.1: 431, and the server goes on.
    const h1 = rawClient(s.server.adminKubeconfigPath);
    try {
      assert.equal((await h1.request({ path: cms(), headers: { "x-big": "y".repeat(20 * 1024) } })).status, 431);
      assert.equal((await h1.request({ path: "/readyz" })).status, 200);
    } finally {
      h1.close();
    }
  });
});
