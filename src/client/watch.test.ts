import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import type { WatchEvent } from "../apis/meta/v1/types.ts";
import { StatusError, isExpired } from "../apimachinery/errors.ts";
import { ConfigMaps } from "./builtins.ts";
import { Client } from "./client.ts";
import { type FakeHandler, sendJson, startFakeApi, statusBody } from "./testing.ts";
import { WatchStreamError } from "./watch.ts";

const ev = (type: string, name: string, rv: string): string =>
  JSON.stringify({ type, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", resourceVersion: rv } } }) + "\n";

function streaming(script: (res: ServerResponse) => void): FakeHandler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    script(res);
  };
}

async function runWatch(handler: FakeHandler, signal = new AbortController().signal) {
  const api = await startFakeApi(handler);
  const c = new Client(api.kubeConfig);
  const events: WatchEvent[] = [];
  try {
    const outcome = await c.watch(ConfigMaps, { namespace: "ns", resourceVersion: "5", allowWatchBookmarks: true, timeoutSeconds: 300 }, (e) => events.push(e), signal).then(
      () => "resolved" as const,
      (e: unknown) => e,
    );
    return { outcome, events, requests: api.requests };
  } finally {
    c.close();
    await api.close();
  }
}

test("events are delivered in order, split across chunks, and a clean end resolves", async () => {
  const r = await runWatch(
    streaming((res) => {
      const two = ev("ADDED", "a", "6") + ev("MODIFIED", "a", "7");
      res.write(two.slice(0, 30));
      setTimeout(() => {
        res.write(two.slice(30) + ev("BOOKMARK", "", "9").slice(0, 10));
        setTimeout(() => res.end(ev("BOOKMARK", "", "9").slice(10)), 5);
      }, 5);
    }),
  );
  assert.equal(r.outcome, "resolved");
  assert.deepEqual(r.events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`), ["ADDED 6", "MODIFIED 7", "BOOKMARK 9"]);
  assert.equal(r.requests[0]!.url, "/api/v1/namespaces/ns/configmaps?resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=300&watch=true");
});

test("an ERROR event with 410 rejects with an Expired StatusError after the events before it", async () => {
  const r = await runWatch(
    streaming((res) => {
      res.write(ev("ADDED", "a", "6"));
      res.write(JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", "too old resource version: 5 (8)") }) + "\n");
      res.write(ev("ADDED", "b", "9"));
    }),
  );
  assert.ok(r.outcome instanceof StatusError);
  assert.equal(isExpired(r.outcome), true);
  assert.equal(r.outcome.code, 410);
  assert.deepEqual(r.events.map((e) => e.object.metadata.name), ["a"], "nothing after the ERROR event is delivered");
});

test("a connection cut in the middle of the stream rejects instead of looking like a normal end", async () => {
  const r = await runWatch(
    streaming((res) => {
      res.write(ev("ADDED", "a", "6"));
      res.write('{"type":"ADDED","obj');
      setTimeout(() => res.socket?.destroy(), 10);
    }),
  );
  assert.ok(r.outcome instanceof WatchStreamError, String(r.outcome));
  assert.equal(r.events.length, 1);
});

test("an undecodable line rejects (client-node would drop it silently)", async () => {
  const r = await runWatch(streaming((res) => res.write(ev("ADDED", "a", "6") + "this is not json\n")));
  assert.ok(r.outcome instanceof WatchStreamError);
  assert.match(r.outcome.message, /undecodable watch event/);
});

test("a non-200 answer rejects with the StatusError of its body", async () => {
  const r = await runWatch((_req, res) => sendJson(res, 410, statusBody(410, "Expired", "too old resource version")));
  assert.ok(r.outcome instanceof StatusError);
  assert.equal(isExpired(r.outcome), true);
  const r2 = await runWatch((_req, res) => sendJson(res, 403, statusBody(403, "Forbidden", "configmaps is forbidden")));
  assert.equal((r2.outcome as StatusError).reason, "Forbidden");
});

test("aborting the signal ends the watch quietly", async () => {
  const ac = new AbortController();
  const r = await runWatch(
    streaming((res) => {
      res.write(ev("ADDED", "a", "6"));
      setTimeout(() => ac.abort(), 10);
    }),
    ac.signal,
  );
  assert.equal(r.outcome, "resolved");
  assert.equal(r.events.length, 1);
});
