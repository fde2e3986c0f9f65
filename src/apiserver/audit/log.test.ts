import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { AuditLog, backupName } from "./log.ts";

const root = mkdtempSync(join(tmpdir(), "audit-log-"));
after(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, "case-"));

const event = (i: number, pad = 0) => ({ kind: "Event", i, pad: "x".repeat(pad) });
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { i: number });

void it("writes queued events as JSON lines, appending to an existing file", async () => {
  const path = join(freshDir(), "audit.log");
  writeFileSync(path, `${JSON.stringify({ i: -1 })}\n`);
  const log = await new AuditLog({ path }).open();
  for (let i = 0; i < 1000; i++) assert.equal(log.write(event(i)), true);
  await log.close();
  assert.deepEqual(lines(path).map((e) => e.i), [-1, ...Array.from({ length: 1000 }, (_, i) => i)]);
});

void it("rotates past maxSizeMB into timestamped backups and keeps maxBackups of them", async () => {
  const dir = freshDir();
  const path = join(dir, "audit.log");
  let t = Date.parse("2026-01-02T03:04:05.000Z");
  const log = await new AuditLog({ path, maxSizeMB: 1, maxBackups: 2, now: () => new Date((t += 1000)) }).open();
  // 5 rounds of ~600 KB: each round after the first overflows 1 MB and rotates.
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 6; i++) log.write(event(round * 10 + i, 100_000));
    await log.flush();
  }
  await log.close();
  const files = readdirSync(dir).sort();
  assert.equal(files.length, 3, `files: ${files.join(", ")}`);
  assert.ok(files.includes("audit.log"));
  for (const f of files.filter((f) => f !== "audit.log")) assert.match(f, /^audit-2026-01-02T03-04-\d{2}\.\d{3}\.log$/);
  const all = files.flatMap((f) => lines(join(dir, f)).map((e) => e.i));
  assert.deepEqual(all.sort((a, b) => a - b), [20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35, 40, 41, 42, 43, 44, 45], "the newest events are kept");
  assert.ok(!all.includes(0), "the oldest backups were removed");
  for (const f of files) assert.ok(readFileSync(join(dir, f)).length <= 1024 * 1024, `${f} is within maxSizeMB`);
});

void it("removes backups older than maxAgeDays", async () => {
  const dir = freshDir();
  const path = join(dir, "audit.log");
  const now = new Date("2026-03-10T00:00:00.000Z");
  writeFileSync(backupName(path, new Date("2026-03-01T00:00:00.000Z")), "old\n");
  writeFileSync(backupName(path, new Date("2026-03-09T00:00:00.000Z")), "recent\n");
  writeFileSync(join(dir, "other-2026-01-01T00-00-00.000.log"), "not ours\n");
  const log = await new AuditLog({ path, maxSizeMB: 1, maxAgeDays: 7, now: () => now }).open();
  log.write(event(1, 1024 * 1024 - 100));
  await log.flush();
  log.write(event(2, 100)); // rotates, then prunes
  await log.close();
  assert.deepEqual(readdirSync(dir).sort(), ["audit-2026-03-09T00-00-00.000.log", "audit-2026-03-10T00-00-00.000.log", "audit.log", "other-2026-01-01T00-00-00.000.log"]);
});

void it("a full queue drops events instead of holding the request, and counts them", async () => {
  const path = join(freshDir(), "audit.log");
  let reported = 0;
  const log = await new AuditLog({ path, bufferSize: 10, onDrop: (d) => (reported = d) }).open();
  const accepted = Array.from({ length: 25 }, (_, i) => log.write(event(i))).filter(Boolean).length;
  assert.equal(accepted, 10);
  assert.equal(log.dropped, 15);
  assert.equal(reported, 1, "the first drop is reported at once, later ones at most once a second");
  await log.close();
  assert.equal(lines(path).length, 10);
});
