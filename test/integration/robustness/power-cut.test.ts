// Durability beyond SIGKILL: a power cut. The SQLite storage runs on an ext4 file system on a loop
// device; the "disk" is the loop device's backing file, which holds only what the kernel wrote to
// the device: what was fsync'ed, plus whatever writeback happened to flush (legal after a power
// cut too). Unsynced data stays in the upper file system's page cache: journal commits only on
// fsync (commit=300) and dirty pages are written back after 30 s, far longer than a round here.
// The cut: SIGKILL the writer, then copy the backing file at once. Nothing may write to the device
// while it is copied, or the copy could mix blocks from before and after a write the file system
// ordered with a flush: so the journal is large enough that it is never checkpointed during a
// round, and mkfs initializes inode tables and journal itself (no background ext4lazyinit).
// The copy is mounted (ext4 replays its journal) and SQLite recovers its WAL: every acknowledged
// key must be there.
// The control runs the same with fsync off and must lose acknowledged writes, which shows that the
// harness does detect acknowledgements made before the data reached the disk. Writeback before the
// cut is legal (memory pressure, or a sync(2) by anything else on the machine flushes every file
// system), so a control round may lose nothing; the control tries up to three rounds and fails
// only if none of them lost a write.
// This proves "acknowledged => on the device" (fsync before the answer); it does not model a disk
// that reorders or drops flushed writes. Root only (loop devices, mount); skipped otherwise.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { SQLiteStorage } from "../../../src/apiserver/storage/sqlite/sqlite.ts";
import { repoRoot } from "../../support/apiserver.ts";

const tools = ["/usr/sbin/losetup", "/usr/sbin/mkfs.ext4", "/usr/bin/mount", "/usr/bin/umount"];
const skip =
  process.getuid?.() !== 0 ? "needs root (loop devices and mounts)" : tools.find((t) => !existsSync(t)) ? `needs ${tools.join(", ")}` : false;
const work = mkdtempSync(join(tmpdir(), "power-cut-"));
const mounted: string[] = [];
const loops: string[] = [];
after(() => {
  for (const m of mounted.reverse()) execFileSync("umount", ["-l", m], { stdio: "ignore" });
  for (const l of loops) execFileSync("losetup", ["-d", l], { stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
});

function mountImage(image: string, dir: string, options: string): void {
  const loop = execFileSync("losetup", ["--find", "--show", image], { encoding: "utf8" }).trim();
  loops.push(loop);
  mkdirSync(dir, { recursive: true });
  execFileSync("mount", ["-t", "ext4", "-o", options, loop, dir]);
  mounted.push(dir);
}

/** Writes through the child until `acks` writes were acknowledged, then SIGKILLs it. */
async function writeThenKill(dbPath: string, fsync: boolean, acks: number): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "src/apiserver/storage/sqlite/durability-child.ts"), dbPath, String(fsync)], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const acked: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${acked.length} writes acknowledged; stderr: ${stderr}`)), 60_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      acked.push(line);
      if (acked.length !== acks) return;
      clearTimeout(timer);
      child.kill("SIGKILL");
      resolve();
    });
    child.once("exit", () => reject(new Error(`writer exited early; stderr: ${stderr}`)));
  }).finally(() => child.kill("SIGKILL"));
  await exited;
  return acked.slice(0, acks);
}

/** One round: returns the acknowledged keys missing after the power cut. */
async function round(name: string, fsync: boolean): Promise<{ acked: number; missing: string[] }> {
  const image = join(work, `${name}.img`);
  execFileSync("truncate", ["-s", "512M", image]);
  execFileSync("mkfs.ext4", ["-q", "-F", "-J", "size=128", "-E", "lazy_itable_init=0,lazy_journal_init=0", image]);
  const live = join(work, `${name}-live`);
  mountImage(image, live, "commit=300");
  const acked = await writeThenKill(join(live, "db.sqlite"), fsync, 3000);
  // The power cut: the device's content right now.
  const cut = join(work, `${name}-cut.img`);
  copyFileSync(image, cut);
  const after = join(work, `${name}-after`);
  mountImage(cut, after, "rw");
  const storage = new SQLiteStorage({ path: join(after, "db.sqlite"), fsync: false });
  try {
    const keys = new Set((await storage.list("/durable/ns")).items.map((kv) => kv.key));
    return { acked: acked.length, missing: acked.filter((k) => !keys.has(k)) };
  } finally {
    await storage.close();
  }
}

void describe("power cut", { skip }, () => {
  void it("loses no acknowledged write with fsync (the default)", async () => {
    const { acked, missing } = await round("fsync", true);
    assert.equal(acked, 3000);
    assert.deepEqual(missing, [], `${missing.length} of ${acked} acknowledged writes lost`);
  });

  void it("control: without fsync, acknowledged writes are lost (the harness sees it)", async () => {
    const survived: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const { acked, missing } = await round(`nofsync-${attempt}`, false);
      if (missing.length > 0) return;
      survived.push(acked);
    }
    assert.fail(`in each of ${survived.length} rounds all acknowledged writes (${survived.join(", ")}) survived without fsync: the cut never dropped unsynced data`);
  });
});
