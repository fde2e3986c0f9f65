import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect as netConnect } from "node:net";
import { after, before, describe, test } from "node:test";
import WebSocket, { WebSocketServer } from "ws";
import { decodeFrame, encodeFrame, STDOUT, V5_PROTOCOL } from "../apimachinery/remotecommand/protocol.ts";
import { FakeClock } from "../utils/clock.ts";
import { startDashboard, TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX, type Dashboard } from "./server.ts";
import { pollFor } from "../utils/poll.ts";

// A stand-in API server on loopback HTTP: tokens "alice" and "bob" are users, "noattach" is a user the
// attach is forbidden to; the attach socket echoes stdin as stdout and records every frame.
const USERS: Record<string, string> = { alice: "alice", bob: "bob", noattach: "carol" };
const frames: { channel: number; payload: string }[] = [];
let upstreamClosed = 0;
let apiRequests = 0;

function fakeApiServer(): Server {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => V5_PROTOCOL });
  const server = createServer((req, res) => {
    apiRequests++;
    const user = USERS[(req.headers.authorization ?? "").replace("Bearer ", "")];
    req.resume();
    if (!user) return void res.writeHead(401).end(JSON.stringify({ kind: "Status", code: 401 }));
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ status: { userInfo: { username: user } } }));
  });
  server.on("upgrade", (req, socket, head) => {
    apiRequests++;
    if (req.headers.authorization === "Bearer noattach") {
      const body = JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403, message: 'pods "p" is forbidden: User "carol" cannot get resource "pods/attach"' });
      return void socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", (data: Buffer) => {
        const f = decodeFrame(data);
        frames.push({ channel: f.channel, payload: f.payload.toString() });
        if (f.channel === 0) ws.send(encodeFrame(STDOUT, f.payload));
      });
      ws.on("close", () => upstreamClosed++);
    });
  });
  return server;
}

function connect(d: Dashboard, token: string | undefined, query = "namespace=ns&pod=p", o: { path?: string; origin?: string } = {}): WebSocket {
  const protocols = [TERMINAL_PROTOCOL, ...(token ? [TOKEN_PROTOCOL_PREFIX + Buffer.from(token).toString("base64url")] : [])];
  return new WebSocket(`${d.url.replace("http", "ws")}${o.path ?? "/api/terminal/attach"}?${query}`, protocols, o.origin ? { origin: o.origin } : {});
}

function refusal(ws: WebSocket): Promise<{ code: number; body: { reason: string; message: string } }> {
  return new Promise((resolve, reject) => {
    ws.on("open", () => reject(new Error("upgraded")));
    ws.on("error", () => undefined);
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ code: res.statusCode!, body: JSON.parse(text) as { reason: string; message: string } }));
    });
  });
}

/** Text messages (parsed) and binary output of a session, and how it closed. */
function session(ws: WebSocket) {
  const texts: Record<string, unknown>[] = [];
  let out = "";
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  const connected = new Promise<void>((resolve) => ws.on("message", (data: Buffer, isBinary) => {
    if (isBinary) out += data.toString();
    else {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      texts.push(m);
      if (m.connected) resolve();
    }
  }));
  return { texts, out: () => out, closed, connected };
}

const until = (f: () => boolean): Promise<void> => pollFor("the condition", f, { intervalMs: 10 });

describe("dashboard terminal endpoint", () => {
  let api: Server;
  let d: Dashboard;
  const clock = new FakeClock();
  before(async () => {
    api = fakeApiServer();
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    d = await startDashboard({ apiServer: { url }, webRoot: "/nonexistent", clock, limits: { sessionsPerUser: 1, idleMs: 60_000, maxMessageBytes: 1024 } });
  });
  after(async () => {
    await d.close();
    api.closeAllConnections();
    await new Promise((r) => api.close(r));
  });

  test("refuses before the upgrade: no token, a token the API server rejects, a bad target", async () => {
    assert.equal((await refusal(connect(d, undefined))).code, 401);
    const rejected = await refusal(connect(d, "mallory"));
    assert.deepEqual([rejected.code, rejected.body.message], [401, "the API server did not accept the token"]);
    const bad = await refusal(connect(d, "alice", "namespace=NS!&pod=p"));
    assert.deepEqual([bad.code, bad.body.reason], [400, "BadRequest"]);
    assert.equal((await refusal(connect(d, "alice", "namespace=ns&pod=p&mode=run"))).code, 400);
    assert.equal(d.sessions().size, 0);
  });

  test("every upgrade path refuses a page of another origin before anything reaches the API server; the dashboard's own origin passes", async () => {
    const own = new URL(d.url);
    const foreign = ["http://evil.example", "null", `https://${own.host}`, `http://${own.hostname}:1`, `${d.url}/path`, "http://127.0.0.2:" + own.port];
    const paths = ["/api/terminal/attach", "/api/terminals/attach/ns/term-x", "/api/terminals/attach/bad", "/anything/else"];
    const before = apiRequests;
    for (const path of paths) {
      for (const origin of foreign) {
        const r = await refusal(connect(d, "alice", "namespace=ns&pod=p", { path, origin }));
        assert.deepEqual([r.code, r.body.reason, r.body.message], [403, "Forbidden", "Origin not allowed"], `${path} from ${origin}`);
      }
    }
    assert.equal(apiRequests, before, "no refused upgrade asked the API server anything");
    assert.equal(d.sessions().size, 0);
    const ws = connect(d, "alice", "namespace=ns&pod=p", { origin: d.url });
    await session(ws).connected;
    ws.close();
    await until(() => d.sessions().size === 0);
  });

  test("a handshake that never completes (a broken WebSocket request) gives the user's session slot back", async () => {
    const port = Number(new URL(d.url).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const s = netConnect(port, "127.0.0.1", () => {
        const protocol = `${TERMINAL_PROTOCOL}, ${TOKEN_PROTOCOL_PREFIX}${Buffer.from("alice").toString("base64url")}`;
        // Sec-WebSocket-Version 12: admitted, then refused by the WebSocket handshake itself.
        s.write(`GET /api/terminal/attach?namespace=ns&pod=p HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 12\r\nSec-WebSocket-Key: ${Buffer.alloc(16).toString("base64")}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);
      });
      let text = "";
      s.on("data", (c: Buffer) => (text += c.toString()));
      s.on("close", () => resolve(text));
      s.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    await until(() => d.sessions().size === 0);
    const ws = connect(d, "alice");
    await session(ws).connected;
    ws.close();
    await until(() => d.sessions().size === 0);
  });

  test("relays keys, output and resizes; one session per user; closing ends it upstream", async () => {
    frames.length = 0;
    const ws = connect(d, "alice");
    const s = session(ws);
    await s.connected;
    assert.deepEqual([...d.sessions()], [["alice", 1]]);
    const refused = await refusal(connect(d, "alice"));
    assert.deepEqual([refused.code, refused.body.reason], [429, "TooManyRequests"]);
    ws.send(Buffer.from("ls\r"));
    ws.send(JSON.stringify({ resize: { cols: 0, rows: 5 } }));
    ws.send(JSON.stringify({ resize: { cols: 91, rows: 27 } }));
    await until(() => s.out() === "ls\r" && frames.length === 2);
    assert.deepEqual(frames, [{ channel: 0, payload: "ls\r" }, { channel: 4, payload: '{"Width":91,"Height":27}' }]);
    const before = upstreamClosed;
    ws.close();
    await until(() => d.sessions().size === 0 && upstreamClosed === before + 1);
    await s.closed;
    const again = session(connect(d, "alice"));
    await again.connected;
  });

  test("an idle session ends with a Timeout status, on the dashboard's clock", async () => {
    await until(() => d.sessions().size === 1); // alice's from the test before
    const s = session(connect(d, "bob"));
    await s.connected;
    clock.step(59_999);
    assert.equal(d.sessions().get("bob"), 1);
    clock.step(1);
    assert.equal(await s.closed, 4408);
    assert.equal((s.texts.at(-1)?.status as { reason: string }).reason, "Timeout");
    await until(() => !d.sessions().has("bob"));
  });

  test("a message over the size bound closes the session with 1009", async () => {
    const ws = connect(d, "bob");
    const s = session(ws);
    await s.connected;
    ws.send(Buffer.alloc(2048, 97));
    assert.equal(await s.closed, 1009);
    await until(() => !d.sessions().has("bob"));
  });

  test("the API server's refusal of the attach reaches the browser as its Status", async () => {
    const s = session(connect(d, "noattach"));
    assert.equal(await s.closed, 4502);
    const status = s.texts.at(-1)?.status as { reason: string; message: string };
    assert.deepEqual([status.reason, status.message], ["Forbidden", 'pods "p" is forbidden: User "carol" cannot get resource "pods/attach"']);
    await until(() => !d.sessions().has("carol"));
  });
});
