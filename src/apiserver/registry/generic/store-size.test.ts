import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejects } from "./testing/assert.ts";
import { newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";
import { DEFAULT_MAX_OBJECT_BYTES } from "./size.ts";

void describe("GenericStore object size limit", () => {
  void it("refuses objects over the kind's limit on create, update, patch and status writes, dry run or not", async () => {
    const t = await newTestStore(widgetDefinition({ maxObjectBytes: 4096 }));
    const ctx = t.ctx("ns1");
    const big = "x".repeat(5000);
    const tooLarge = /^Request entity too large: Widget "w1" is too large to store: limit is 4096 bytes(, the object is \d+ bytes)?$/;
    await rejects(t.store.create(ctx, widget("w1", { color: "red" }, { annotations: { a: big } })), 413, "RequestEntityTooLarge", tooLarge);
    await rejects(t.store.create(ctx, widget("w1", { color: "red" }, { annotations: { a: big } }), { dryRun: true }), 413, "RequestEntityTooLarge", tooLarge);
    const created = (await t.store.create(ctx, widget("w1", { color: "red" }))).object;
    await rejects(t.store.update(ctx, "w1", { ...created, metadata: { ...created.metadata, annotations: { a: big } } }), 413, "RequestEntityTooLarge", tooLarge);
    await rejects(t.store.patch(ctx, "w1", "merge", { metadata: { annotations: { a: big } } }), 413, "RequestEntityTooLarge", /Widget "w1" is too large to store: limit is 4096 bytes/);
    await rejects(t.store.patch(ctx, "w1", "json", [{ op: "add", path: "/metadata/annotations", value: { a: "x".repeat(3000) } }, { op: "copy", from: "/metadata/annotations/a", path: "/metadata/annotations/b" }]), 413, "RequestEntityTooLarge", /limit is 4096 bytes/);
    await rejects(t.store.patch(ctx, "w1", "merge", { status: { phase: big } }, {}, "status"), 413, "RequestEntityTooLarge");
    const fits = await t.store.patch(ctx, "w1", "merge", { metadata: { annotations: { a: "x".repeat(3000) } } });
    assert.equal((fits.object.metadata.annotations ?? {}).a?.length, 3000);
  });

  void it("defaults to etcd's 1.5 MiB", async () => {
    const t = await newTestStore(widgetDefinition());
    const ctx = t.ctx("ns1");
    // annotations are limited to 256 KiB by validation; spec is not
    await rejects(t.store.create(ctx, widget("w2", { items: [{ name: "x".repeat(DEFAULT_MAX_OBJECT_BYTES) }] })), 413, "RequestEntityTooLarge", /limit is 1572864 bytes/);
    await t.store.create(ctx, widget("w2", { items: [{ name: "x".repeat(DEFAULT_MAX_OBJECT_BYTES - 1000) }] }));
  });

  void it("refuses a patched object nested too deeply with 422", async () => {
    const t = await newTestStore(widgetDefinition());
    const ctx = t.ctx("ns1");
    await t.store.create(ctx, widget("w3", { color: "red" }));
    let v: unknown = "x";
    for (let i = 0; i < 499; i++) v = { a: v };
    await rejects(t.store.patch(ctx, "w3", "merge", { metadata: { annotations: v } }), 422, "Invalid", /nested too deeply: exceeded max depth of 500/);
  });
});
