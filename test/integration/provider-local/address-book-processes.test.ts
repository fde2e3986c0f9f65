import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const child = join(dirname(fileURLToPath(import.meta.url)), "address-book-child.ts");

function run(file: string, name: string, count: number, startAt: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", child, file, name, String(count), String(startAt)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`${name} exited ${code}`))));
  });
}

test("two processes allocating from one FileAddressBook at once never hand out the same address", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pl-book-procs-"));
  try {
    const file = join(dir, "addresses.json");
    const n = 150;
    // Both start allocating at the same instant, after their (slow) module loading.
    const startAt = Date.now() + 2_500;
    const [a, b] = await Promise.all([run(file, "a", n, startAt), run(file, "b", n, startAt)]);
    const all = [...a, ...b];
    assert.equal(new Set(all).size, 2 * n, "an address was handed out twice");
    const book = JSON.parse(await readFile(file, "utf8")) as Record<string, Record<string, string>>;
    assert.equal(Object.keys(book.public!).length, 2 * n, "an update was lost");
    assert.deepEqual((await readdir(dir)).sort(), ["addresses.json"], "the lock or a temporary file was left behind");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
