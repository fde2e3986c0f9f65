// Host keys (docs/gardenctl-ssh.md#host-keys): parsing the published keys (Bastion status.sshHostKeys, the Node
// annotation) and writing known_hosts files with patterns for every address ssh may use.
import { parseAuthorizedKey } from "../../../api/operations/sshkey.ts";
import { errorMessage } from "./errors.ts";
import { writePrivate } from "./keys.ts";
import type { Logger } from "./log.ts";

/** `<type> <base64>` per parsable entry; comments dropped, unparsable entries skipped with a warning. */
export function parseHostKeys(entries: string[], what: string, log: Logger): string[] {
  const keys: string[] = [];
  for (const entry of entries) {
    if (entry.trim() === "" || entry.trim().startsWith("#")) continue;
    try {
      const k = parseAuthorizedKey(entry);
      keys.push(`${k.type} ${k.blob.toString("base64")}`);
    } catch (err) {
      log.warn(`skipping unparsable SSH host key of ${what}`, { err: errorMessage(err) });
    }
  }
  return keys;
}

/** `host` on port 22 or without a port, else `[host]:port`. */
export function hostPattern(host: string, port: string): string {
  return port === "" || port === "22" ? host : `[${host}]:${port}`;
}

export interface KnownHostsEntry {
  hosts: string[];
  keys: string[];
}

export function knownHostsText(entries: KnownHostsEntry[]): string {
  const lines: string[] = [];
  for (const e of entries) {
    const hosts = [...new Set(e.hosts.filter((h) => h !== ""))];
    if (hosts.length === 0) continue;
    for (const key of e.keys) lines.push(`${hosts.join(",")} ${key}`);
  }
  return lines.map((l) => `${l}\n`).join("");
}

export function writeKnownHosts(path: string, entries: KnownHostsEntry[]): void {
  writePrivate(path, knownHostsText(entries));
}
