// bench/patch: how the patch types scale with their input, the figures the unit tests do not time.
// Prints, for merge patch (a deep original with a large subtree) and strategic merge patch (long
// sets and keyed lists), the best of five runs at a small and a 16 times larger input and their ratio.
// Linear work stays near 16 for the strategic merge and near 1 for the deeper merge (the subtree is
// copied once); quadratic work would be 256 and 16.
//   node --import tsx bench/patch/main.ts
import { mergePatch } from "../../src/apimachinery/patch/merge-patch.ts";
import { strategicMergePatch } from "../../src/apimachinery/patch/strategic-merge-patch.ts";
import type { JSONSchemaProps } from "../../src/apis/apiextensions/v1/types.ts";
import { table } from "../support/stats.ts";

function best(fn: () => unknown, runs = 5): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    min = Math.min(min, performance.now() - started);
  }
  return min;
}

function deepMerge(depth: number): () => unknown {
  let original: Record<string, unknown> = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
  let patch: Record<string, unknown> = { added: 1 };
  for (let i = 0; i < depth; i++) {
    original = { a: original };
    patch = { a: patch };
  }
  return () => mergePatch(original, patch);
}

const schema: JSONSchemaProps = {
  type: "object",
  properties: { items: { type: "array", items: { type: "object" }, "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name" } },
};

function listMerge(n: number): () => unknown {
  const finalizers = Array.from({ length: n }, (_, i) => `example.com/f${i}`);
  const original = { metadata: { finalizers: finalizers.slice(0, n / 2) }, items: Array.from({ length: n / 2 }, (_, i) => ({ name: `i${i}`, v: 1 })) };
  const patch = {
    metadata: { finalizers, "$deleteFromPrimitiveList/finalizers": finalizers.slice(0, 10) },
    "$setElementOrder/items": Array.from({ length: n }, (_, i) => ({ name: `i${n - 1 - i}` })),
    items: [...Array.from({ length: n }, (_, i) => ({ name: `i${n - 1 - i}`, v: 2 })), { name: "i0", $patch: "delete" }],
  };
  return () => strategicMergePatch(original, patch, schema);
}

const rows: (string | number)[][] = [["figure", "small ms", "16x ms", "ratio", "goal"]];
const merge = [best(deepMerge(25)), best(deepMerge(400))] as const;
rows.push(["merge patch, depth 25 -> 400 over a 50,000-key subtree", merge[0], merge[1], merge[1] / merge[0], "< 4 (copied once)"]);
const smp = [best(listMerge(2_000)), best(listMerge(32_000))] as const;
rows.push(["strategic merge, 2,000 -> 32,000 list items and finalizers", smp[0], smp[1], smp[1] / smp[0], "< 64 (linear)"]);
console.log(table(rows));
