import { test } from "node:test";
import assert from "node:assert/strict";
import { mergePatch } from "./merge-patch.ts";

void test("RFC 7386 appendix A test cases", () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [original, patch, want] of cases) {
    assert.deepEqual(mergePatch(original, patch), want, JSON.stringify({ original, patch }));
  }
});

void test("kubectl label style patch", () => {
  const obj = { metadata: { name: "x", labels: { a: "1", b: "2" } }, spec: { replicas: 1 } };
  assert.deepEqual(mergePatch(obj, { metadata: { labels: { a: null, c: "3" } } }), {
    metadata: { name: "x", labels: { b: "2", c: "3" } },
    spec: { replicas: 1 },
  });
});

void test("arrays are replaced, nulls inside arrays are kept", () => {
  assert.deepEqual(mergePatch({ l: [1, 2, 3] }, { l: [null, 4] }), { l: [null, 4] });
});

void test("inputs are not modified and the result shares nothing with them", () => {
  const original = { a: { b: 1 }, keep: { x: [1] } };
  const patch = { a: { c: { d: 1 } } };
  const out = mergePatch(original, patch) as { a: { c: { d: number } }; keep: { x: number[] } };
  out.a.c.d = 2;
  out.keep.x.push(2);
  assert.deepEqual(original, { a: { b: 1 }, keep: { x: [1] } });
  assert.deepEqual(patch, { a: { c: { d: 1 } } });
});

void test("__proto__ keys stay data", () => {
  const out = mergePatch({}, JSON.parse('{"__proto__":{"polluted":1}}')) as Record<string, unknown>;
  assert.ok(Object.hasOwn(out, "__proto__"));
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});
