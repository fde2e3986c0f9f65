// Who user `gardener` is. On a machine (root "/") it is looked up in /etc/passwd (a file read: no
// process per apply, which a rotation on a busy node would wait for) and created with `useradd` when
// missing; tests and other roots plug in a fixed identity.
import { readFile } from "node:fs/promises";
import type { Owner } from "./files.ts";
import { runFile as run } from "../host/spawn.ts";

export const GARDENER_USER = "gardener";
export const GARDENER_HOME = "/home/gardener";
export const PASSWD_FILE = "/etc/passwd";

export interface UserManager {
  /** Ensures the user exists (home /home/gardener, primary group gardener); an existing user is kept. Returns its ids. */
  ensureUser(name: string, home: string): Promise<Owner>;
}

/** The uid and primary gid of `name` in passwd(5) content; undefined when it has no well-formed entry. */
export function passwdEntry(passwd: string, name: string): Owner | undefined {
  for (const line of passwd.split("\n")) {
    const f = line.split(":");
    if (f.length < 7 || f[0] !== name || !/^\d+$/.test(f[2]!) || !/^\d+$/.test(f[3]!)) continue;
    return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  return undefined;
}

async function ids(name: string, passwdFile: string): Promise<Owner | undefined> {
  try {
    return passwdEntry(await readFile(passwdFile, "utf8"), name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** The machine's own accounts: /etc/passwd to look up, `useradd --create-home --user-group` to create. */
export function systemUserManager(passwdFile = PASSWD_FILE): UserManager {
  return {
    async ensureUser(name, home) {
      const existing = await ids(name, passwdFile);
      if (existing) return existing;
      await run("useradd", ["--create-home", "--home-dir", home, "--user-group", "--shell", "/bin/bash", name]);
      const created = await ids(name, passwdFile);
      if (!created) throw new Error(`user ${name} does not exist after useradd`);
      return created;
    },
  };
}

/** A fixed identity (default: this process's), for roots other than "/". */
export function fixedUserManager(owner: Owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }): UserManager {
  return { ensureUser: () => Promise.resolve(owner) };
}
