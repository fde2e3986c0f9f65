// The node's SSH host keys as the Node annotation `node.gardener.cloud/ssh-host-keys` carries them:
// one `<type> <base64>` per line (comments dropped), sorted, from the `ssh_host_*_key.pub` files.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { formatPublicKey, isValidAuthorizedKey, parseAuthorizedKey } from "../api/operations/sshkey.ts";

const PUB = /^ssh_host_.+_key\.pub$/;

/** Reads the host keys in `dir` (a host path); unreadable or malformed files are skipped. A missing dir gives "". */
export async function readHostKeys(dir: string): Promise<string> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  }
  const keys: string[] = [];
  for (const name of names.filter((n) => PUB.test(n))) {
    const text = await readFile(join(dir, name), "utf8").catch(() => "");
    const line = text.split("\n")[0] ?? "";
    if (isValidAuthorizedKey(line)) keys.push(formatPublicKey(parseAuthorizedKey(line)));
  }
  return [...new Set(keys)].sort().join("\n");
}
