import { test } from "node:test";
import assert from "node:assert/strict";
import { mergePatch } from "../apimachinery/patch/merge-patch.ts";
import { newConflict, newNotFound } from "../apimachinery/errors.ts";
import { FakeClock } from "../utils/clock.ts";
import { retryOnConflict } from "./helpers.ts";
import { createMergePatch, mergeFrom } from "./patch.ts";

test("createMergePatch gives the minimal RFC 7386 patch, and applying it yields the target", () => {
  const before = { metadata: { name: "a", labels: { x: "1", y: "2" } }, spec: { list: [1, 2], keep: true, nested: { a: 1 } } };
  const after = { metadata: { name: "a", labels: { x: "1", z: "3" } }, spec: { list: [1, 2, 3], keep: true, nested: {} }, status: { ok: true } };
  const patch = createMergePatch(before, after);
  assert.deepEqual(patch, {
    metadata: { labels: { y: null, z: "3" } },
    spec: { list: [1, 2, 3], nested: { a: null } },
    status: { ok: true },
  });
  assert.deepEqual(mergePatch(before, patch), after);
  assert.equal(createMergePatch(before, structuredClone(before)), undefined);
});

test("mergeFrom adds the resourceVersion only for an optimistic lock", () => {
  const before = { metadata: { name: "a", resourceVersion: "7", finalizers: ["x"] } };
  const after = { metadata: { name: "a", resourceVersion: "7", finalizers: ["x", "y"] } };
  assert.deepEqual(mergeFrom(before, after), { type: "merge", body: { metadata: { finalizers: ["x", "y"] } } });
  assert.deepEqual(mergeFrom(before, after, { optimisticLock: true })?.body, { metadata: { finalizers: ["x", "y"], resourceVersion: "7" } });
  assert.equal(mergeFrom(before, before), undefined);
});

test("retryOnConflict retries conflicts with pauses on the clock and gives up after the steps", async () => {
  const clock = new FakeClock();
  let calls = 0;
  const p = retryOnConflict(
    async () => {
      calls++;
      throw newConflict({ group: "", resource: "configmaps" }, "a", "the object has been modified");
    },
    { clock, backoff: { steps: 3, durationMs: 100, factor: 2, jitter: 0 } },
  );
  const outcome = p.then(
    () => "resolved",
    (e: unknown) => e,
  );
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setImmediate(r));
    clock.step(50);
  }
  assert.equal(calls, 3);
  assert.match(String(await outcome), /modified/);

  let n = 0;
  const other = retryOnConflict(async () => {
    n++;
    throw newNotFound({ group: "", resource: "configmaps" }, "a");
  });
  await assert.rejects(other, /not found/);
  assert.equal(n, 1, "other errors are not retried");
});
