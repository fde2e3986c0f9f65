import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX, attachUrl, base64url, parseMessage, reconnectDelayMs, resizeMessage } from "./protocol.ts";
import { CONNECTED, CONNECTING, CREATING, DISCONNECTED, FETCHING, type SocketLike, TerminalSession, type Timers } from "./session.ts";

/** Timers that run only when the test advances them. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private readonly jobs = new Map<number, { at: number; fn: () => void; every?: number }>();
  setTimeout(fn: () => void, ms: number) {
    const id = this.next++;
    this.jobs.set(id, { at: this.now + ms, fn });
    return id;
  }
  setInterval(fn: () => void, ms: number) {
    const id = this.next++;
    this.jobs.set(id, { at: this.now + ms, fn, every: ms });
    return id;
  }
  clearTimeout(id: unknown) {
    this.jobs.delete(id as number);
  }
  clearInterval(id: unknown) {
    this.jobs.delete(id as number);
  }
  pending() {
    return this.jobs.size;
  }
  async advance(ms: number) {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.jobs.entries()].filter(([, j]) => j.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [id, job] = due;
      this.now = job.at;
      if (job.every) job.at += job.every;
      else this.jobs.delete(id);
      job.fn();
      await flush();
    }
    this.now = end;
  }
}

const flush = () => new Promise((r) => setImmediate(r));

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  sent: (Uint8Array | string)[] = [];
  closedWith: number | undefined;
  onopen: SocketLike["onopen"] = null;
  onmessage: SocketLike["onmessage"] = null;
  onclose: SocketLike["onclose"] = null;
  onerror: SocketLike["onerror"] = null;
  constructor(readonly url: string, readonly protocols: string[]) {}
  send(data: Uint8Array | string) {
    this.sent.push(data);
  }
  close(code?: number) {
    this.closedWith = code;
    this.readyState = 3;
  }
  /** The socket opens and the dashboard says the API server accepted the attach. */
  open(recording = { id: "r1", input: false }) {
    this.readyState = 1;
    this.onopen?.({});
    this.onmessage?.({ data: JSON.stringify({ connected: { protocol: "v5.channel.k8s.io", recording } }) });
  }
  status(status: Record<string, unknown>) {
    this.onmessage?.({ data: JSON.stringify({ status }) });
  }
  texts() {
    return this.sent.filter((m): m is string => typeof m === "string");
  }
  drop(code: number, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  output(text: string) {
    this.onmessage?.({ data: new TextEncoder().encode(text).buffer });
  }
}

const text = (b: Uint8Array | string) => (typeof b === "string" ? b : new TextDecoder().decode(b));

function world(opts: { failCreate?: string; failFetch?: () => string | undefined } = {}) {
  const timers = new FakeTimers();
  const calls: [string, Record<string, unknown>][] = [];
  const sockets: FakeSocket[] = [];
  const states: [number, string | undefined][] = [];
  const written: string[] = [];
  const session = new TerminalSession({
    call: async (method, params) => {
      calls.push([method, params]);
      if (method === "create" && opts.failCreate) throw new Error(opts.failCreate);
      const fetchFailure = method === "fetch" ? opts.failFetch?.() : undefined;
      if (fetchFailure) throw new Error(fetchFailure);
      if (method === "create") return { metadata: { name: "term-shoot-1", namespace: "garden-p" } };
      return {};
    },
    openSocket: (url, protocols) => {
      const s = new FakeSocket(url, protocols);
      sockets.push(s);
      return s;
    },
    timers,
    token: () => "tok/en+",
    origin: "https://dash.example:8443",
    coordinate: { namespace: "garden-p", name: "s", target: "shoot" },
    identifier: "pane-1",
    params: { container: { image: "busybox" } },
    size: () => ({ cols: 80, rows: 24 }),
    write: (d) => written.push(text(d)),
    onState: (s, m) => states.push([s, m]),
  });
  const method = (m: string) => calls.filter(([x]) => x === m);
  return { timers, calls, sockets, states, written, session, method };
}

describe("the attach protocol", () => {
  test("the resize message, the token subprotocol and the attach URL", () => {
    assert.equal(resizeMessage(91, 27), '{"resize":{"cols":91,"rows":27}}');
    assert.equal(base64url("tok/en+\u00e9"), Buffer.from("tok/en+\u00e9").toString("base64url"));
    assert.equal(attachUrl("https://h:1", "garden-p", "term-a"), "wss://h:1/api/terminals/attach/garden-p/term-a?container=terminal&stdin=true&stdout=true&tty=true");
    assert.equal(attachUrl("http://h:1", "a/b", "c?d"), "ws://h:1/api/terminals/attach/a%2Fb/c%3Fd?container=terminal&stdin=true&stdout=true&tty=true");
  });

  test("incoming messages: binary is output, text is connected or a Status, anything else is ignored", () => {
    assert.deepEqual(parseMessage(new Uint8Array([104, 105]).buffer), { kind: "output", data: new Uint8Array([104, 105]) });
    assert.deepEqual(parseMessage('{"connected":{"protocol":"v5.channel.k8s.io","recording":{"id":"x","input":true}}}'), { kind: "connected", recording: { id: "x", input: true } });
    assert.deepEqual(parseMessage('{"status":{"status":"Failure","message":"m"}}'), { kind: "status", status: { status: "Failure", message: "m" } });
    for (const m of [new Uint8Array([]), "{nope", "null", "[1]", '{"status":"x"}', 42, undefined]) assert.equal(parseMessage(m).kind, "ignored", String(m));
  });

  test("reconnect backoff: at once after a live connection, else 3 s, doubling to at most 30 s", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => reconnectDelayMs(n, true)), [0, 3000, 6000, 12000, 24000, 30000]);
    assert.deepEqual([1, 2, 3, 4, 5, 19].map((n) => reconnectDelayMs(n, false)), [3000, 3000, 6000, 12000, 24000, 30000]);
  });
});

describe("a terminal pane's session", () => {
  test("create -> fetch -> attach with the token subprotocol; forced resize until output; keys and resizes as frames", async () => {
    const w = world();
    await w.session.open();
    assert.deepEqual(w.states.map(([s]) => s), [CREATING, FETCHING, CONNECTING]);
    assert.deepEqual(w.calls[0], ["create", { container: { image: "busybox" }, coordinate: { namespace: "garden-p", name: "s", target: "shoot" }, identifier: "pane-1" }]);
    assert.deepEqual(w.calls[1], ["fetch", { name: "term-shoot-1", namespace: "garden-p" }]);
    const ws = w.sockets[0]!;
    assert.equal(ws.url, "wss://dash.example:8443/api/terminals/attach/garden-p/term-shoot-1?container=terminal&stdin=true&stdout=true&tty=true");
    assert.deepEqual(ws.protocols, [TOKEN_PROTOCOL_PREFIX + Buffer.from("tok/en+").toString("base64url"), TERMINAL_PROTOCOL]);
    assert.equal(ws.binaryType, "arraybuffer");
    ws.readyState = 1;
    ws.onopen?.({});
    assert.equal(w.session.state, CONNECTING, "connected only once the dashboard says so");
    ws.open({ id: "rec", input: true });
    assert.equal(w.session.state, CONNECTED);
    assert.deepEqual(w.session.recording, { id: "rec", input: true });
    // the forced resize: rows-1 then rows, every 200 ms, until the first output
    assert.deepEqual(ws.sent, [resizeMessage(80, 23), resizeMessage(80, 24)]);
    await w.timers.advance(200);
    assert.equal(ws.sent.length, 4);
    ws.output("$ ");
    await w.timers.advance(1000);
    assert.equal(ws.sent.length, 4, "no forced resize after the first output");
    assert.deepEqual(w.written, ["$ "]);
    w.session.input("ls\r");
    w.session.resize(100, 30);
    assert.deepEqual([...(ws.sent[4] as unknown as Uint8Array)], [108, 115, 13]);
    assert.equal(ws.sent[5], '{"resize":{"cols":100,"rows":30}}');
  });

  test("the forced resize stops after 5 rounds without output", async () => {
    const w = world();
    await w.session.open();
    w.sockets[0]!.open();
    await w.timers.advance(5000);
    assert.equal(w.sockets[0]!.texts().length, 10);
  });

  test("heartbeat every 60 s and a keepalive ping (an empty binary message) every 30 s while open; none after close, which removes the Terminal", async () => {
    const w = world();
    await w.session.open();
    const ws = w.sockets[0]!;
    ws.open();
    ws.output("$ ");
    await w.timers.advance(59_000);
    assert.equal(w.method("heartbeat").length, 0);
    assert.equal(ws.sent.filter((f) => typeof f !== "string" && f.length === 0).length, 1);
    await w.timers.advance(1000);
    assert.deepEqual(w.method("heartbeat"), [["heartbeat", { name: "term-shoot-1", namespace: "garden-p" }]]);
    await w.timers.advance(120_000);
    assert.equal(w.method("heartbeat").length, 3);
    await w.session.close();
    assert.equal(ws.closedWith, 1000);
    assert.deepEqual(w.method("remove"), [["remove", { name: "term-shoot-1", namespace: "garden-p" }]]);
    assert.equal(w.timers.pending(), 0, "no timer left");
    await w.timers.advance(600_000);
    assert.equal(w.method("heartbeat").length, 3);
    assert.equal(w.session.state, DISCONNECTED);
  });

  test("a dropped socket reconnects at once after a live connection (fetch, then attach), later ones with backoff", async () => {
    const w = world();
    await w.session.open();
    w.sockets[0]!.open();
    w.sockets[0]!.drop(1006);
    assert.equal(w.session.state, CONNECTING);
    await w.timers.advance(0);
    assert.equal(w.method("fetch").length, 2);
    assert.equal(w.sockets.length, 2);
    w.sockets[1]!.drop(1006);
    await w.timers.advance(2999);
    assert.equal(w.sockets.length, 2, "the second try waits 3 s");
    await w.timers.advance(1);
    assert.equal(w.sockets.length, 3);
    w.sockets[2]!.open();
    assert.equal(w.session.state, CONNECTED);
    assert.equal(w.method("create").length, 1, "reconnects fetch, they do not create");
  });

  test("20 failed tries give up with 'Could not connect to terminal'; code 1000 is not retried", async () => {
    const w = world();
    await w.session.open();
    for (let i = 0; i < 19; i++) {
      w.sockets.at(-1)!.drop(1006);
      await w.timers.advance(30_000);
    }
    w.sockets.at(-1)!.drop(1006);
    assert.equal(w.sockets.length, 20);
    assert.deepEqual(w.states.at(-1), [DISCONNECTED, "Could not connect to terminal"]);
    assert.equal(w.timers.pending(), 0);

    const v = world();
    await v.session.open();
    v.sockets[0]!.open();
    v.sockets[0]!.drop(1000, "exit");
    assert.deepEqual(v.states.at(-1), [DISCONNECTED, "Terminal connection lost: exit"]);
    await v.timers.advance(60_000);
    assert.equal(v.sockets.length, 1);
    await v.session.open();
    assert.equal(v.sockets.length, 2, "Reconnect opens again");
  });

  test("the server's message reaches the pane: create refused, fetch timing out during a reconnect", async () => {
    const w = world({ failCreate: "admission webhook denied: terminal limit reached" });
    await w.session.open();
    assert.deepEqual(w.states.at(-1), [DISCONNECTED, "Could not connect to terminal: admission webhook denied: terminal limit reached"]);
    assert.equal(w.sockets.length, 0);
    assert.equal(w.timers.pending(), 0);

    let fetches = 0;
    const v = world({ failFetch: () => (++fetches > 1 ? "Terminal term-shoot-1 did not become ready within 30s" : undefined) });
    await v.session.open();
    v.sockets[0]!.open();
    v.sockets[0]!.drop(1006);
    await v.timers.advance(0);
    assert.deepEqual(v.states.at(-1), [DISCONNECTED, "Could not connect to terminal: Terminal term-shoot-1 did not become ready within 30s"]);
  });

  test("a refusal Status before the close is shown and not retried (Forbidden, idle Timeout)", async () => {
    const w = world();
    await w.session.open();
    w.sockets[0]!.status({ status: "Failure", reason: "Forbidden", message: 'pods "term-1" is forbidden: User "u" cannot create resource "pods/attach"' });
    w.sockets[0]!.drop(4502);
    assert.deepEqual(w.states.at(-1), [DISCONNECTED, 'pods "term-1" is forbidden: User "u" cannot create resource "pods/attach"']);
    await w.timers.advance(60_000);
    assert.equal(w.sockets.length, 1);
    assert.equal(w.timers.pending(), 0);
  });
});
