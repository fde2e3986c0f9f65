import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_SAVED_PANES, type SavedPane, livePanes, readSaved } from "./restore.ts";

const pane = (identifier: string, namespace = "garden-p", target = "shoot"): SavedPane => ({ identifier, coordinate: { namespace, name: "s", target }, title: `Cluster - ${identifier}` });

test("saved panes are read leniently and bounded", () => {
  assert.deepEqual(readSaved(null), []);
  assert.deepEqual(readSaved("{not json"), []);
  assert.deepEqual(readSaved('{"a":1}'), []);
  const ok = pane("a");
  assert.deepEqual(readSaved(JSON.stringify([ok, { identifier: 1 }, null, pane("b", "garden-p", "evil"), { ...pane("c"), title: undefined }])), [ok]);
  assert.equal(readSaved(JSON.stringify(Array.from({ length: 50 }, (_, i) => pane(`p${i}`)))).length, MAX_SAVED_PANES);
});

test("only panes whose Terminal still lives come back; one list per namespace; a failed list drops its namespace's panes", async () => {
  const asked: string[] = [];
  const list = async (ns: string) => {
    asked.push(ns);
    if (ns === "garden-broken") throw new Error("Forbidden");
    return ns === "garden-p" ? [{ metadata: { identifier: "a" } }, { metadata: { identifier: "gone-pane-elsewhere" } }, { metadata: {} }] : [{ metadata: { identifier: "x" } }];
  };
  const saved = [pane("a"), pane("b"), pane("x", "garden-q"), pane("a", "garden-q"), pane("y", "garden-broken")];
  assert.deepEqual((await livePanes(saved, list)).map((p) => `${p.coordinate.namespace}/${p.identifier}`), ["garden-p/a", "garden-q/x"]);
  assert.deepEqual(asked.sort(), ["garden-broken", "garden-p", "garden-q"]);
});
