// Child process of the durability tests: 8 concurrent writers create keys in a loop and print each
// acknowledged key. Arguments: <database path> [fsync: true|false].
import { SQLiteStorage } from "./sqlite.ts";

const path = process.argv[2];
if (!path) throw new Error("usage: durability-child.ts <database path> [true|false]");
const storage = new SQLiteStorage({ path, fsync: process.argv[3] !== "false" });
const writer = async (w: number) => {
  for (let i = 0; ; i++) {
    const key = `/durable/ns/w${w}-${i}`;
    await storage.create(key, `value-${i}`);
    process.stdout.write(`${key}\n`);
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
};
await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
