// Child process of durability.test.ts: writes keys in a loop and prints each acknowledged key.
import { SQLiteStorage } from "./sqlite.ts";

const path = process.argv[2];
if (!path) throw new Error("usage: durability-child.ts <database path>");
const storage = new SQLiteStorage({ path });
for (let i = 0; ; i++) {
  const key = `/durable/ns/k${i}`;
  await storage.create(key, `value-${i}`);
  process.stdout.write(`${key}\n`);
  if (i % 50 === 0) await new Promise((r) => setImmediate(r));
}
