import assert from "node:assert/strict";
import { test } from "node:test";
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import { configMapDefinition } from "../registry/core/configmap/definition.ts";
import { untilAsync } from "../registry/generic/testing/sink.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import { Rewatcher } from "./rewatch.ts";

const CMS = { group: "", resource: "configmaps" };

test("in-process watchers of one resource share each change's object instead of decoding it once each", async () => {
  const s = newTestServer([configMapDefinition]);
  await s.client.create({ group: "", resource: "namespaces" }, { metadata: { name: "a" } });
  const seen: WatchEvent[][] = [[], []];
  const watchers = seen.map((events) => new Rewatcher(s.client, CMS, s.clock, (e) => events.push(e)));
  await Promise.all(watchers.map((w) => w.start()));
  await s.client.create(CMS, { metadata: { name: "x", namespace: "a" }, data: { k: "v" } });
  await untilAsync(async () => seen.every((events) => events.some((e) => e.object.metadata.name === "x")), "both watchers saw x");
  const [first, second] = seen.map((events) => events.find((e) => e.object.metadata.name === "x")!);
  assert.equal(first!.type, "ADDED");
  assert.equal(first!.object, second!.object, "the same object, decoded once");
  // A watcher that may change what it gets still gets its own copy.
  const own: WatchEvent[] = [];
  const handle = await s.client.watch(CMS, "a", (e) => own.push(e), () => undefined, { resourceVersion: first!.object.metadata.resourceVersion });
  await s.client.patch(CMS, "a", "x", "merge", { data: { k: "w" } });
  await untilAsync(async () => own.length > 0 && seen[0]!.length > 1, "the update delivered");
  assert.notEqual(own[0]!.object, seen[0]!.at(-1)!.object);
  assert.deepEqual(own[0]!.object, seen[0]!.at(-1)!.object);
  handle.stop();
  for (const w of watchers) w.stop();
});
