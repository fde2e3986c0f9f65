// Who user `gardener` is. On a machine (root "/") it is created with `useradd` when missing; tests
// and other roots plug in a fixed identity.
import type { Owner } from "./files.ts";
import { runFile as run } from "../host/spawn.ts";

export const GARDENER_USER = "gardener";
export const GARDENER_HOME = "/home/gardener";

export interface UserManager {
  /** Ensures the user exists (home /home/gardener, primary group gardener); an existing user is kept. Returns its ids. */
  ensureUser(name: string, home: string): Promise<Owner>;
}

async function ids(name: string): Promise<Owner | undefined> {
  try {
    const uid = (await run("id", ["-u", name])).stdout.trim();
    const gid = (await run("id", ["-g", name])).stdout.trim();
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

/** The machine's own accounts: `id` to look up, `useradd --create-home --user-group` to create. */
export function systemUserManager(): UserManager {
  return {
    async ensureUser(name, home) {
      const existing = await ids(name);
      if (existing) return existing;
      await run("useradd", ["--create-home", "--home-dir", home, "--user-group", "--shell", "/bin/bash", name]);
      const created = await ids(name);
      if (!created) throw new Error(`user ${name} does not exist after useradd`);
      return created;
    },
  };
}

/** A fixed identity (default: this process's), for roots other than "/". */
export function fixedUserManager(owner: Owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }): UserManager {
  return { ensureUser: () => Promise.resolve(owner) };
}
