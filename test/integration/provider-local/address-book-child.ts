// Child process of address-book-processes.test.ts: waits until the given start time, then allocates
// `count` addresses (keys "<name>-<i>") in the shared book, one update each, and prints them as JSON.
import { FileAddressBook, allocateIn } from "../../../src/provider-local/network/addresses.ts";

const [file, name, count, startAt] = process.argv.slice(2);
const book = new FileAddressBook(file!);
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const got: string[] = [];
for (let i = 0; i < Number(count); i++) got.push(await book.update((a) => allocateIn(a, "public", "198.18.0.0/16", `${name}-${i}`)));
process.stdout.write(JSON.stringify(got));
