import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStatusError } from "../../apimachinery/errors.ts";
import { checkObjectBody, decodeBody } from "./body.ts";
import { parseDeleteOptions, parseListOptions } from "./params.ts";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isStatusError(e) ? e.code : -1;
  }
  return 0;
};

void describe("decodeBody", () => {
  void it("treats an empty body as absent and decodes YAML", () => {
    assert.equal(decodeBody(Buffer.from("  \n"), "json"), undefined);
    assert.deepEqual(decodeBody(Buffer.from("a: 1\nb: [x]\n"), "yaml"), { a: 1, b: ["x"] });
    assert.equal(code(() => decodeBody(Buffer.from("{"), "json")), 400);
  });
});

void describe("checkObjectBody", () => {
  const exp = { group: "demo.io", version: "v1", kind: "Widget", namespaced: false, namespace: "" };
  void it("drops the namespace of cluster-scoped objects and fills in the type", () => {
    const obj = checkObjectBody({ metadata: { name: "w", namespace: "x" } }, exp);
    assert.deepEqual(obj, { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w" } });
  });

  void it("fills in the URL's name and namespace when missing", () => {
    const obj = checkObjectBody({ kind: "Widget" }, { ...exp, namespaced: true, namespace: "n", name: "w" });
    assert.deepEqual(obj.metadata, { name: "w", namespace: "n" });
  });

  void it("rejects non-objects and bad metadata", () => {
    assert.equal(code(() => checkObjectBody("x", exp)), 400);
    assert.equal(code(() => checkObjectBody({ metadata: [] }, exp)), 400);
  });
});

void describe("list and delete options", () => {
  void it("allows sendInitialEvents on watches with NotOlderThan", () => {
    const o = parseListOptions(new URLSearchParams("watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"));
    assert.deepEqual(o, { watch: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true });
    assert.equal(code(() => parseListOptions(new URLSearchParams("watch=true&sendInitialEvents=true"))), 422);
    assert.equal(code(() => parseListOptions(new URLSearchParams("watch=true&resourceVersionMatch=Exact&resourceVersion=5"))), 422);
    assert.equal(code(() => parseListOptions(new URLSearchParams("limit=x"))), 400);
  });

  void it("reads DeleteOptions from the query, overridden by the body", () => {
    const d = parseDeleteOptions(new URLSearchParams("gracePeriodSeconds=30&propagationPolicy=Orphan&dryRun=All"), { propagationPolicy: "Foreground", preconditions: { uid: "u" } });
    assert.deepEqual(d, { options: { gracePeriodSeconds: 30, propagationPolicy: "Foreground", preconditions: { uid: "u" } }, dryRun: true });
    assert.equal(code(() => parseDeleteOptions(new URLSearchParams("dryRun=Some"), undefined)), 422);
  });
});
