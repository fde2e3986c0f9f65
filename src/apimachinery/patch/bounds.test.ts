// Every patch type is bounded in work and result: bombs answer a 4xx (by the work and copy budgets, not
// by a clock) instead of using up memory or CPU, and large merges give the right result. How their time
// scales with the input is shown by bench/patch, not asserted here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { StatusError } from "../errors.ts";
import { MAX_NESTING_DEPTH } from "../json/bounds.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { mergePatch } from "./merge-patch.ts";
import { strategicMergePatch } from "./strategic-merge-patch.ts";

function failsWith(fn: () => unknown, code: number, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}



const nested = (depth: number): unknown => {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

void describe("JSON patch bounds", () => {
  void it("stops a copy bomb at the accumulated copy limit (kube-apiserver's message)", () => {
    const ops = [{ op: "add", path: "/x", value: new Array(16).fill(0) }, ...Array.from({ length: 40 }, () => ({ op: "copy", from: "/x", path: "/x/-" }))];
    failsWith(() => applyJsonPatch({}, ops), 422, /Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728/);
    // A few copies within the limit still work.
    const ok = applyJsonPatch({}, ops.slice(0, 4)) as { x: unknown[] };
    assert.equal(ok.x.length, 19);
  });

  void it("honours a smaller copy limit", () => {
    const doc = { a: "x".repeat(100) };
    assert.deepEqual(applyJsonPatch(doc, [{ op: "copy", from: "/a", path: "/b" }], { maxCopyBytes: 102, maxWork: 1e6, maxDepth: 10 }), { a: doc.a, b: doc.a });
    failsWith(() => applyJsonPatch(doc, [{ op: "copy", from: "/a", path: "/b" }, { op: "copy", from: "/a", path: "/c" }], { maxCopyBytes: 200, maxWork: 1e6, maxDepth: 10 }), 422, /exceeding the limit 200/);
  });

  void it("refuses values nested past the depth bound, however they got there", () => {
    failsWith(() => applyJsonPatch({}, [{ op: "add", path: "/x", value: nested(MAX_NESTING_DEPTH) }]), 422, /nested too deeply: exceeded max depth of 500/);
    assert.ok(applyJsonPatch({}, [{ op: "add", path: "/x", value: nested(MAX_NESTING_DEPTH - 1) }]));
    // copy into itself, at the deepest point, doubles the depth each time
    const deepPath = (n: number) => `/x${"/0".repeat(n)}`;
    const ops = [{ op: "add", path: "/x", value: nested(100) }, { op: "copy", from: "/x", path: deepPath(99) }, { op: "copy", from: "/x", path: deepPath(199) }, { op: "copy", from: "/x", path: deepPath(399) }];
    failsWith(() => applyJsonPatch({}, ops), 422, /nested too deeply/);
    // moving a deep value further down is measured too
    failsWith(() => applyJsonPatch({ a: nested(450), b: nested(60) }, [{ op: "move", from: "/a", path: `/b${"/0".repeat(59)}` }]), 422, /nested too deeply/);
  });

  void it("bounds the work of shifting long lists and moving large values", () => {
    const doc = { list: new Array(200_000).fill(0), big: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])) };
    const shifts = Array.from({ length: 10_000 }, () => ({ op: "add", path: "/list/0", value: 1 }));
    failsWith(() => applyJsonPatch(doc, shifts), 422, /more than 1000000 units of work/);
    const moves = Array.from({ length: 10_000 }, (_, i) => ({ op: "move", from: i % 2 ? "/b/big" : "/big", path: i % 2 ? "/big" : "/b/big" }));
    failsWith(() => applyJsonPatch({ ...doc, b: {} }, moves), 422, /units of work/);
  });
});

void describe("merge patch bounds", () => {
  void it("merges a deep original with a large subtree (copied once)", () => {
    const deep = (depth: number) => {
      let original: Record<string, unknown> = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
      let patch: Record<string, unknown> = { added: 1 };
      for (let i = 0; i < depth; i++) {
        original = { a: original };
        patch = { a: patch };
      }
      return { original, patch };
    };
    const deeper = deep(400);
    let inner = mergePatch(deeper.original, deeper.patch) as Record<string, unknown>;
    for (let i = 0; i < 400; i++) inner = inner.a as Record<string, unknown>;
    assert.equal(inner.added, 1);
    assert.equal(inner.k49999, 49999);
  });
});

void describe("strategic merge patch bounds", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      items: { type: "array", items: { type: "object" }, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" },
    },
  };

  void it("merges long sets and keyed lists", () => {
    const n = 30_000;
    const finalizers = Array.from({ length: n }, (_, i) => `example.com/f${i}`);
    const original = { metadata: { finalizers: finalizers.slice(0, n / 2) }, items: Array.from({ length: n / 2 }, (_, i) => ({ name: `i${i}`, v: 1 })) };
    const patch = {
      metadata: { finalizers, "$deleteFromPrimitiveList/finalizers": finalizers.slice(0, 10) },
      "$setElementOrder/items": Array.from({ length: n }, (_, i) => ({ name: `i${n - 1 - i}` })),
      items: [...Array.from({ length: n }, (_, i) => ({ name: `i${n - 1 - i}`, v: 2 })), { name: "i0", $patch: "delete" }],
    };
    const out = strategicMergePatch(original, patch, schema) as { metadata: { finalizers: string[] }; items: { name: string; v: number }[] } | undefined;
    assert.ok(out, "the patch failed");
    assert.equal(out.metadata.finalizers.length, n - 10);
    assert.equal(out.items.length, n); // i0 is deleted, then added again by the patch
    assert.deepEqual(out.items[0], { name: `i${n - 1}`, v: 2 });
  });

  void it("orders and deletes as before (checked against the former quadratic version on 50000 random patches)", () => {
    const original = { metadata: { finalizers: ["a", "b", "c"] }, items: [{ name: "x", v: 1 }, { name: "y", v: 1 }, { name: "z", v: 1 }] };
    const patch = { metadata: { finalizers: ["d", "a", "d"] }, items: [{ name: "y", $patch: "delete" }, { name: "w", v: 2 }, { name: "x", v: 2 }] };
    assert.deepEqual(strategicMergePatch(original, patch, schema), {
      metadata: { finalizers: ["d", "a", "b", "c"] },
      items: [{ name: "w", v: 2 }, { name: "x", v: 2 }, { name: "z", v: 1 }],
    });
  });
});
