// Runs every GenericStore scenario again over the watch cache (Cacher over SQLite), the storage
// stack the server uses.
import { Cacher } from "../../storage/cacher/cacher.ts";
import { SQLiteStorage } from "../../storage/sqlite/sqlite.ts";
import { useStorageFactory } from "./testing/fixtures.ts";

useStorageFactory(async () => {
  const cacher = new Cacher(new SQLiteStorage({ path: ":memory:" }));
  await cacher.start();
  return cacher;
});

await import("./store-create.test.ts");
await import("./store-update.test.ts");
await import("./store-patch.test.ts");
await import("./store-list.test.ts");
await import("./store-watch.test.ts");
