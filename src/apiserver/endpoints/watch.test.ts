import assert from "node:assert/strict";
import { get, type IncomingMessage } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newResourceExpired } from "../../apimachinery/errors.ts";
import { BearerTokenAuthenticator } from "../authentication/bearer.ts";
import { FakeClock } from "../../utils/clock.ts";
import { type FakeStore, type TestServer, configMapDef, startTestServer } from "./testing.ts";
import { serveWatch, type WatchOutput } from "./watch.ts";

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

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), "condition not reached");
}

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
  function fakeOutput(buffered: () => number) {
    const sent: string[] = [];
    let ended = false;
    const out: WatchOutput = {
      started: true,
      begin() {},
      send: (t) => void sent.push(t),
      buffered,
      end: () => void (ended = true),
      onClose() {},
    };
    return { out, sent, ended: () => ended };
  }

  void it("ends the watch when the client's buffer passes the bound", async () => {
    let size = 0;
    const { out, sent, ended } = fakeOutput(() => size);
    let stopped = false;
    let sink: Parameters<Parameters<typeof serveWatch>[1]>[0] | undefined;
    const done = serveWatch(out, (k) => {
      sink = k;
      return Promise.resolve({ stop: () => void (stopped = true) });
    }, { clock: new FakeClock(), maxBuffered: 100, timeoutSeconds: 60 });
    await until(() => sink !== undefined);
    assert.equal(sink?.onEvent({ type: "ADDED", object: cm("a") }), true);
    size = 101;
    assert.equal(sink?.onEvent({ type: "ADDED", object: cm("b") }), false);
    await done;
    assert.equal(sent.length, 2);
    assert.ok(ended());
    assert.ok(stopped);
  });

  void it("stops a store watch that started after the stream already ended", async () => {
    const { out } = fakeOutput(() => 0);
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
