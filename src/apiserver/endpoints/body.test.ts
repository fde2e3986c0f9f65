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

void describe("decodeBody depth and expansion bounds", () => {
  const deepJson = (n: number) => "[".repeat(n) + "]".repeat(n);
  const message = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return isStatusError(e) ? `${e.code} ${e.message}` : `thrown ${String(e)}`;
    }
    return "no error";
  };

  void it("refuses JSON nested deeper than 500 before parsing, in every mode", () => {
    assert.deepEqual(decodeBody(Buffer.from(deepJson(500)), "json", true), JSON.parse(deepJson(500)));
    for (const strict of [false, true]) {
      assert.equal(message(() => decodeBody(Buffer.from(deepJson(501)), "json", strict)), "400 the request body is nested too deeply: exceeded max depth of 500");
      assert.match(message(() => decodeBody(Buffer.from(deepJson(1_500_000)), "json", strict)), /^400 .*exceeded max depth of 500/);
    }
    // brackets inside strings do not count
    assert.deepEqual(decodeBody(Buffer.from(JSON.stringify({ a: "[".repeat(1000) })), "json"), { a: "[".repeat(1000) });
  });

  void it("refuses deep YAML in flow and block style quickly, and alias bombs", () => {
    const started = performance.now();
    assert.match(message(() => decodeBody(Buffer.from("[".repeat(3_000_000)), "yaml")), /^400 .*exceeded max depth of 500/);
    assert.match(message(() => decodeBody(Buffer.from("- ".repeat(1_000_000) + "x"), "yaml")), /^400 .*exceeded max depth of 500/);
    let block = "";
    for (let i = 0; i < 600; i++) block += `${" ".repeat(i)}a:\n`;
    assert.match(message(() => decodeBody(Buffer.from(block), "yaml")), /^400 .*exceeded max depth of 500/);
    assert.ok(performance.now() - started < 2000, `deep YAML took ${performance.now() - started} ms`);
    // aliases share a value; expanded, this would be 10^9 strings
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 9; i++) bomb += `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]\n`;
    assert.match(message(() => decodeBody(Buffer.from(bomb), "yaml")), /^413 Request entity too large/);
    // the JSON-compatible core schema: timestamps stay strings, duplicate keys only fail when strict
    assert.deepEqual(decodeBody(Buffer.from("t: 2024-01-01T00:00:00Z\nb: yes\nk: 1\nk: 2\n"), "yaml"), { t: "2024-01-01T00:00:00Z", b: "yes", k: 2 });
    assert.match(message(() => decodeBody(Buffer.from("k: 1\nk: 2\n"), "yaml", true)), /^400 error converting YAML to JSON: duplicated mapping key/);
    assert.deepEqual(Object.keys(decodeBody(Buffer.from("__proto__: 1\n"), "yaml") as object), ["__proto__"]);
  });
});
