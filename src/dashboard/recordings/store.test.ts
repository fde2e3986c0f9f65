import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { FakeClock } from "../../utils/clock.ts";
import { canRead } from "./http.ts";
import { RecordingStore, validId } from "./store.ts";
import { pollFor } from "../../utils/poll.ts";

const dir = mkdtempSync(join(tmpdir(), "recordings-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const start = (store: RecordingStore, user: string, name = "term-a") => store.start({ namespace: "garden-p", terminal: { name }, user, host: { namespace: "term-x", pod: "term-x" } });
const castOf = (id: string) => readFileSync(join(dir, "garden-p", `${id}.cast`), "utf8");

const until = (f: () => boolean): Promise<void> => pollFor("the condition", f, { intervalMs: 5 });

describe("recording store", () => {
  test("events reach the disk within a second of the clock, metadata is final after close", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 4, 0, 0));
    const store = new RecordingStore({ dir }, clock);
    const rec = await start(store, "system:serviceaccount:p:ci");
    assert.match(rec.meta.id, /^20261127T040000Z-system_serviceaccount_p_ci-term-a-[0-9a-f]{8}$/);
    rec.output(1, Buffer.from("hello"));
    assert.equal(castOf(rec.meta.id), "", "buffered");
    clock.step(999);
    assert.equal(castOf(rec.meta.id), "");
    clock.step(1);
    await until(() => castOf(rec.meta.id).includes("hello"));
    clock.step(2000);
    await rec.close();
    const meta = JSON.parse(readFileSync(join(dir, "garden-p", `${rec.meta.id}.json`), "utf8")) as { endedAt: string; durationSeconds: number; bytes: number; truncated: boolean };
    assert.equal(meta.durationSeconds, 3);
    assert.equal(meta.bytes, Buffer.byteLength(castOf(rec.meta.id)));
    assert.equal(meta.truncated, false);
    assert.equal(meta.endedAt, "2026-11-27T04:00:03.000Z");
  });

  test("64 KiB waiting are written without waiting for the clock", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 4, 1, 0));
    const rec = await start(new RecordingStore({ dir }, clock), "alice", "term-big");
    for (let i = 0; i < 70; i++) rec.output(1, Buffer.from("y".repeat(1024)));
    await until(() => castOf(rec.meta.id).length > 64 * 1024);
    await rec.close();
  });

  test("a user lists and opens only their own recordings, operators all; bad paths find nothing", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 5, 0, 0));
    const store = new RecordingStore({ dir }, clock);
    const mine = await start(store, "alice", "term-b");
    clock.step(1000);
    const theirs = await start(store, "carol", "term-c");
    await Promise.all([mine.close(), theirs.close()]);
    const alice = canRead({ name: "alice", isAdmin: false });
    const ids = (await store.list("garden-p", alice)).map((m) => m.id);
    assert.ok(ids.includes(mine.meta.id) && !ids.includes(theirs.meta.id));
    assert.ok(ids.every((id) => id.includes("-alice-")));
    const all = (await store.list("garden-p", canRead({ name: "op", isAdmin: true }))).map((m) => m.id);
    assert.ok(all.indexOf(theirs.meta.id) < all.indexOf(mine.meta.id), "newest first");
    assert.equal(await store.open("garden-p", theirs.meta.id, alice), undefined);
    const opened = await store.open("garden-p", mine.meta.id, alice);
    assert.ok(opened);
    const chunks: Buffer[] = [];
    for await (const c of opened.cast) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), castOf(mine.meta.id));
    assert.equal(opened.size, Buffer.byteLength(castOf(mine.meta.id)));
    for (const [ns, id] of [["garden-p", `../garden-p/${mine.meta.id}`], ["..", mine.meta.id], ["garden-p", "x.json"], ["Garden", mine.meta.id]] as const) {
      assert.equal(await store.open(ns, id, () => true), undefined, `${ns}/${id}`);
    }
    assert.deepEqual(await store.list("../etc", () => true), []);
    assert.ok(!validId(`${mine.meta.id}/x`));
    assert.ok(readdirSync(join(dir, "garden-p")).every((f) => !f.endsWith(".tmp")));
  });
});
