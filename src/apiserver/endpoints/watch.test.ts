import assert from "node:assert/strict";
import { get, type IncomingMessage } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newResourceExpired, type StatusError } from "../../apimachinery/errors.ts";
import { BearerTokenAuthenticator } from "../authentication/bearer.ts";
import { FakeClock } from "../../utils/clock.ts";
import { type FakeStore, type TestServer, configMapDef, startTestServer } from "./testing.ts";
import { serveWatch, type WatchOutput, watchTimeoutSeconds } from "./watch.ts";
import { WatchBudget } from "./watch-budget.ts";
import { pollFor } from "../../utils/poll.ts";

interface Stream {
  res: IncomingMessage;
  /** Next complete line (without the newline); undefined at end of stream. */
  next(): Promise<string | undefined>;
  raw: string[];
  close(): void;
}

function openWatch(s: TestServer, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = get(s.url + path, { headers: { authorization: "Bearer admin", ...headers } }, (res) => {
      let buf = "";
      const lines: string[] = [];
      const raw: string[] = [];
      let ended = false;
      let waiter: (() => void) | undefined;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        raw.push(chunk);
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
        waiter?.();
      });
      res.on("end", () => {
        ended = true;
        waiter?.();
      });
      res.on("error", () => {});
      resolve({
        res,
        raw,
        async next() {
          while (lines.length === 0 && !ended) await new Promise<void>((r) => (waiter = r));
          return lines.shift();
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
  });
}

const until = (cond: () => boolean): Promise<void> => pollFor("the condition", cond, { intervalMs: 5 });

let s: TestServer;
let cms: FakeStore;
const cm = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "dev", resourceVersion: "5" } });

before(async () => {
  s = await startTestServer([configMapDef()]);
  cms = s.store(configMapDef());
});
after(() => s.close());
beforeEach(() => {
  cms.objects.clear();
  cms.endWatches();
});

void describe("HTTP watch", () => {
  void it("streams one JSON event per line, headers first, synthetic ADDED then changes", async () => {
    cms.objects.set("dev/a", cm("a"));
    const w = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true");
    assert.equal(w.res.statusCode, 200);
    assert.equal(w.res.headers["content-type"], "application/json");
    assert.equal(w.res.headers["transfer-encoding"], "chunked");
    const first = JSON.parse((await w.next()) ?? "") as WatchEvent;
    assert.deepEqual([first.type, first.object.metadata.name, first.object.kind], ["ADDED", "a", "ConfigMap"]);
    await cms.create({ user: { username: "u", groups: [] }, namespace: "dev", clock: s.clock, dryRun: false }, cm("b"));
    const line = (await w.next()) ?? "";
    assert.ok(!line.includes("\n") && !line.includes("  "));
    assert.equal((JSON.parse(line) as WatchEvent).object.metadata.name, "b");
    w.close();
  });

  void it("answers 410 as HTTP when the watch cannot start, and as an ERROR event that ends the stream later", async () => {
    cms.expireNextWatch = true;
    const failed = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true&resourceVersion=1");
    assert.equal(failed.res.statusCode, 410);
    assert.equal(failed.res.headers["content-type"], "application/json");
    assert.equal(await failed.next(), undefined);
    assert.equal((JSON.parse(failed.raw.join("")) as { reason: string }).reason, "Expired");
    const w = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true&resourceVersion=7");
    await until(() => cms.sinks.size === 1);
    cms.endWatches(newResourceExpired("too old resource version: 7 (9)"));
    const ev = JSON.parse((await w.next()) ?? "") as { type: string; object: { kind: string; code: number; reason: string } };
    assert.deepEqual([ev.type, ev.object.kind, ev.object.code, ev.object.reason], ["ERROR", "Status", 410, "Expired"]);
    assert.equal(await w.next(), undefined);
  });

  void it("honours timeoutSeconds and ends without a final event", async () => {
    const w = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true&timeoutSeconds=30&resourceVersion=9");
    await until(() => cms.sinks.size === 1);
    s.clock.step(29_000);
    assert.equal(cms.sinks.size, 1);
    s.clock.step(1_000);
    assert.equal(await w.next(), undefined);
    assert.equal(cms.sinks.size, 0);
  });

  void it("stops the store watch when the client goes away", async () => {
    const w = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true");
    await until(() => cms.sinks.size === 1);
    assert.equal(s.handler.activeWatches, 1);
    w.close();
    await until(() => cms.sinks.size === 0 && s.handler.activeWatches === 0);
  });

  void it("ends watches cleanly on shutdown", async () => {
    const other = await startTestServer([configMapDef()]);
    const store = other.store(configMapDef());
    const w = await openWatch(other, "/api/v1/namespaces/dev/configmaps?watch=true");
    await until(() => store.sinks.size === 1);
    other.handler.shutdown();
    assert.equal(await w.next(), undefined);
    assert.equal(w.res.complete, true);
    assert.equal(store.sinks.size, 0);
    await other.close();
  });

  void it("watches one object through the legacy /watch/ prefix", async () => {
    const w = await openWatch(s, "/api/v1/watch/namespaces/dev/configmaps/x1?labelSelector=a");
    await until(() => cms.sinks.size === 1);
    assert.deepEqual(cms.lastCall("watch")?.args[0], { labelSelector: "a", fieldSelector: "metadata.name=x1" });
    w.close();
  });

  void it("sends one-row Tables, columns only in the first event", async () => {
    cms.objects.set("dev/a", cm("a"));
    cms.objects.set("dev/b", cm("b"));
    const w = await openWatch(s, "/api/v1/namespaces/dev/configmaps?watch=true", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    const e1 = JSON.parse((await w.next()) ?? "") as { object: { kind: string; columnDefinitions: unknown[]; rows: unknown[] } };
    const e2 = JSON.parse((await w.next()) ?? "") as typeof e1;
    assert.deepEqual([e1.object.kind, e1.object.columnDefinitions.length, e1.object.rows.length], ["Table", 2, 1]);
    assert.deepEqual([e2.object.columnDefinitions.length, e2.object.rows.length], [0, 1]);
    w.close();
  });
});

void describe("WebSocket watch", () => {
  void it("sends one event per message", async () => {
    cms.objects.set("dev/a", cm("a"));
    const ws = new WebSocket(`${s.url.replace("http", "ws")}/api/v1/namespaces/dev/configmaps?watch=true`, { headers: { authorization: "Bearer admin" } });
    const msg = await new Promise<string>((resolve, reject) => {
      ws.once("message", (d: Buffer) => resolve(d.toString("utf8")));
      ws.once("error", reject);
    });
    assert.deepEqual((JSON.parse(msg) as WatchEvent).object.metadata.name, "a");
    const closed = new Promise((r) => ws.once("close", r));
    ws.close();
    await closed;
    await until(() => cms.sinks.size === 0);
  });

  void it("takes a browser's bearer token from the subprotocols and never echoes it", async () => {
    const tokens = { authenticateToken: (t: string) => Promise.resolve(t === "secret" ? { user: { username: "browser", groups: [] } } : undefined) };
    const other = await startTestServer([configMapDef()], { authenticator: new BearerTokenAuthenticator(tokens) });
    try {
      const token = `base64url.bearer.authorization.k8s.io.${Buffer.from("secret").toString("base64url")}`;
      const ws = new WebSocket(`${other.url.replace("http", "ws")}/api/v1/namespaces/dev/configmaps?watch=true`, [token, "binary.k8s.io"]);
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      assert.equal(ws.protocol, "binary.k8s.io");
      assert.equal(other.authorizer.seen.at(-1)?.user.username, "browser");
      ws.close();
    } finally {
      await other.close();
    }
  });

  void it("authenticates upgrades and answers failures as HTTP Status", async () => {
    const ws = new WebSocket(`${s.url.replace("http", "ws")}/api/v1/namespaces/dev/configmaps?watch=true`);
    const code = await new Promise<number | undefined>((resolve) => {
      ws.once("unexpected-response", (_req, res) => resolve(res.statusCode));
      ws.once("error", () => resolve(undefined));
    });
    assert.equal(code, 401);
  });
});

void describe("serveWatch", () => {
  /** An output whose peer takes nothing until told (accept), like a client that does not read. */
  function fakeOutput(highWater = 100) {
    const written: Buffer[] = [];
    let buffered = 0;
    let drain = () => {};
    let close = () => {};
    const state = { ended: false, aborted: false };
    const out: WatchOutput = {
      started: true,
      pieces: true,
      begin() {},
      write(b) {
        written.push(b);
        buffered += b.length;
        return buffered < highWater;
      },
      buffered: () => buffered,
      onDrain: (fn) => void (drain = fn),
      end: () => {
        state.ended = true;
        if (buffered === 0) close();
      },
      abort: () => {
        state.aborted = true;
        close();
      },
      onClose: (fn) => void (close = fn),
    };
    /** The peer reads everything written so far. */
    const accept = () => {
      buffered = 0;
      drain();
      if (state.ended && buffered === 0) close();
    };
    return { out, written, state, accept, text: () => Buffer.concat(written).toString("utf8") };
  }

  type Sink = Parameters<Parameters<typeof serveWatch>[1]>[0];
  function run(out: WatchOutput, opts: Partial<Parameters<typeof serveWatch>[2]> = {}) {
    const w: { sink?: Sink; stopped: boolean; done?: Promise<void> } = { stopped: false };
    w.done = serveWatch(out, (k) => {
      w.sink = k;
      return Promise.resolve({ stop: () => void (w.stopped = true) });
    }, { clock: new FakeClock(), timeoutSeconds: 60, ...opts });
    return w;
  }
  /** Lets the writer take its turns. */
  const turns = async (n = 5) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };
  const big = (name: string, bytes: number): KubeObject => ({ ...cm(name), data: { v: "x".repeat(bytes) } } as KubeObject);

  void it("writes only while the connection takes data; the rest waits in the queue, in 64 KiB pieces, until drain", async () => {
    const o = fakeOutput(100);
    const budget = new WatchBudget();
    const w = run(o.out, { budget });
    await until(() => w.sink !== undefined);
    assert.equal(w.sink?.onEvent({ type: "ADDED", object: big("a", 200_000) }), true);
    assert.equal(o.written.length, 0, "written in the writer's turn, not in the store's dispatch");
    await turns();
    assert.equal(o.written.length, 1, "one piece, then the connection said wait");
    assert.equal(o.written[0]?.length, 64 * 1024);
    assert.ok(budget.totalBytes > 200_000, "queue and connection backlog are charged");
    assert.equal(w.sink?.onEvent({ type: "MODIFIED", object: cm("b") }), true);
    for (let i = 0; i < 10 && o.written.length < 5; i++) {
      o.accept();
      await turns();
    }
    assert.equal(o.written.length, 5, "200 KB in 4 pieces, then the small line");
    const lines = o.text().trimEnd().split("\n").map((l) => (JSON.parse(l) as WatchEvent).type);
    assert.deepEqual(lines, ["ADDED", "MODIFIED"]);
    o.accept();
    await turns();
    assert.equal(budget.totalBytes, 0);
  });

  void it("ends a watch whose backlog passes its bound at once: connection cut, queue released, store watch stopped", async () => {
    const o = fakeOutput(100);
    const budget = new WatchBudget({ perWatchBytes: 10_000 });
    const w = run(o.out, { budget, user: "alice" });
    await until(() => w.sink !== undefined);
    // A first event larger than the bound is taken: a reader keeps up with any object size.
    assert.equal(w.sink?.onEvent({ type: "ADDED", object: big("a", 20_000) }), true);
    await turns();
    assert.equal(o.state.aborted, false);
    assert.equal(w.sink?.onEvent({ type: "MODIFIED", object: big("a", 100) }), false);
    await w.done;
    assert.deepEqual([o.state.aborted, o.state.ended, w.stopped], [true, false, true]);
    assert.deepEqual([budget.totalBytes, budget.watches, budget.evictions], [0, 0, 1]);
  });

  void it("ends a user's largest backlog when the user is over its bound, not other users' watches", async () => {
    const budget = new WatchBudget({ perWatchBytes: 1e9, perUserBytes: 50_000, totalBytes: 1e9 });
    const slow = [fakeOutput(), fakeOutput(), fakeOutput()];
    const ws = [run(slow[0]!.out, { budget, user: "mallory" }), run(slow[1]!.out, { budget, user: "mallory" }), run(slow[2]!.out, { budget, user: "eve" })];
    await until(() => ws.every((w) => w.sink !== undefined));
    const send = async () => {
      ws.forEach((w) => w.sink?.onEvent({ type: "MODIFIED", object: big("a", 20_000) }));
      await turns();
    };
    await send();
    assert.equal(budget.evictions, 0);
    await send(); // mallory's first watch: 40 KB + her second 20 KB > 50 KB
    assert.deepEqual(slow.map((o) => o.state.aborted), [true, false, false]);
    ws[1]?.sink?.onEvent({ type: "MODIFIED", object: big("a", 20_000) }); // her second: 60 KB; eve's 40 KB is untouched
    assert.deepEqual(slow.map((o) => o.state.aborted), [true, true, false]);
    assert.equal(budget.evictions, 2);
  });

  void it("ends the largest backlog anywhere when the server is over its bound, never a reader with none", async () => {
    const budget = new WatchBudget({ perWatchBytes: 1e9, perUserBytes: 1e9, totalBytes: 70_000 });
    const [big1, small, reader] = [fakeOutput(), fakeOutput(), fakeOutput()];
    const [w1, w2, w3] = [run(big1.out, { budget, user: "a" }), run(small.out, { budget, user: "b" }), run(reader.out, { budget, user: "c" })];
    await until(() => [w1, w2, w3].every((w) => w.sink !== undefined));
    w1.sink?.onEvent({ type: "ADDED", object: big("a", 20_000) });
    w1.sink?.onEvent({ type: "MODIFIED", object: big("a", 20_000) });
    w2.sink?.onEvent({ type: "ADDED", object: big("a", 20_000) });
    await turns();
    assert.equal(budget.evictions, 0);
    // The reader's event puts the server over: the largest backlog (40 KB) goes, not the reader.
    assert.equal(w3.sink?.onEvent({ type: "ADDED", object: big("a", 20_000) }), true);
    await turns();
    reader.accept();
    await turns();
    assert.deepEqual([big1.state.aborted, small.state.aborted, reader.state.aborted], [true, false, false]);
    assert.ok(budget.totalBytes < 25_000, String(budget.totalBytes));
  });

  void it("hands every watcher of a change the same encoded line", async () => {
    const a = fakeOutput(1e9);
    const b = fakeOutput(1e9);
    const [wa, wb] = [run(a.out, { sameObjects: true }), run(b.out, { sameObjects: true })];
    await until(() => wa.sink !== undefined && wb.sink !== undefined);
    const obj = big("a", 1000);
    wa.sink?.onEvent({ type: "MODIFIED", object: obj });
    wb.sink?.onEvent({ type: "MODIFIED", object: obj });
    await turns();
    assert.equal(a.written[0]?.buffer, b.written[0]?.buffer, "one buffer, referenced by both");
  });

  void it("refuses a user's watch beyond the most allowed with 429 TooManyRequests", async () => {
    const budget = new WatchBudget({ perUserWatches: 1 });
    const first = run(fakeOutput().out, { budget, user: "alice" });
    await until(() => first.sink !== undefined);
    await assert.rejects(run(fakeOutput().out, { budget, user: "alice" }).done!, (e: StatusError) => e.code === 429 && e.reason === "TooManyRequests");
    const other = run(fakeOutput().out, { budget, user: "bob" });
    await until(() => other.sink !== undefined);
  });

  void it("clamps timeoutSeconds to twice the minimum request timeout (no timer overflow)", async () => {
    const clock = new FakeClock();
    const o = fakeOutput();
    const w = run(o.out, { clock, timeoutSeconds: 2_147_484, minRequestTimeoutSeconds: 1800 });
    await until(() => w.sink !== undefined);
    clock.step(3_599_000);
    assert.equal(o.state.ended, false);
    clock.step(1_000);
    assert.equal(o.state.ended, true);
    assert.equal(watchTimeoutSeconds(30, 1800), 30);
    for (let i = 0; i < 20; i++) {
      const t = watchTimeoutSeconds(undefined, 1800);
      assert.ok(t >= 1800 && t < 3600, String(t));
    }
  });

  void it("on timeout sends what is queued, then ends; a peer that never takes it is cut after a grace period", async () => {
    const clock = new FakeClock();
    const reader = fakeOutput(100);
    const stuck = fakeOutput(100);
    const budget = new WatchBudget();
    const wr = run(reader.out, { clock, budget, timeoutSeconds: 5 });
    const ws = run(stuck.out, { clock, budget, timeoutSeconds: 5 });
    await until(() => wr.sink !== undefined && ws.sink !== undefined);
    wr.sink?.onEvent({ type: "ADDED", object: big("a", 100_000) });
    ws.sink?.onEvent({ type: "ADDED", object: big("a", 100_000) });
    await turns();
    clock.step(5_000);
    await wr.done;
    for (let i = 0; i < 5; i++) {
      reader.accept();
      await turns();
    }
    assert.deepEqual([reader.state.ended, reader.state.aborted], [true, false]);
    assert.equal(JSON.parse(reader.text()).type, "ADDED");
    assert.equal(stuck.state.aborted, false);
    clock.step(10_000);
    assert.equal(stuck.state.aborted, true);
    assert.equal(budget.totalBytes, 0);
  });

  void it("stops a store watch that started after the stream already ended", async () => {
    const { out } = fakeOutput();
    let stopped = false;
    const clock = new FakeClock();
    const done = serveWatch(out, (k) => {
      k.onEnd();
      return Promise.resolve({ stop: () => void (stopped = true) });
    }, { clock, timeoutSeconds: 5 });
    await done;
    await until(() => stopped);
    assert.equal(clock.pending(), 0);
  });
});
