import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, it } from "node:test";
import { fileURLToPath } from "node:url";
import { SQLiteStorage } from "./sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "sqlite-durability-"));
after(() => rmSync(dir, { recursive: true, force: true }));

void it("SIGKILL loses no acknowledged write", async () => {
  const path = join(dir, "db.sqlite");
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./durability-child.ts", import.meta.url)), path], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const acked: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child acknowledged only ${acked.length} writes; stderr: ${stderr}`)), 60_000);
      createInterface({ input: child.stdout }).on("line", (line) => {
        acked.push(line);
        if (acked.length === 300) {
          clearTimeout(timer);
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.once("exit", () => reject(new Error(`child exited early; stderr: ${stderr}`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  assert.equal(await exited, "SIGKILL");

  const storage = new SQLiteStorage({ path });
  try {
    const keys = new Set((await storage.list("/durable/ns")).items.map((kv) => kv.key));
    const missing = acked.filter((k) => !keys.has(k));
    assert.deepEqual(missing, [], "every acknowledged key survives");
    assert.ok((await storage.currentRevision()) >= acked.length);
  } finally {
    await storage.close();
  }
});
