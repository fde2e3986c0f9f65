// The `gardener-user` part (docs/maintenance-and-rotation.md#the-gardener-user-part, docs/maintenance-and-rotation.md#ssh-access-off): the keys file, user `gardener`,
// `~/.ssh` 0700 and `authorized_keys` 0600 byte-identical to the keys file (written atomically, so
// sshd never sees a partial file), and the sudoers entry. Without the part the keys file and
// `authorized_keys` are removed; the user and its sudoers entry may stay.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { AUTHORIZED_KEYS_FILE, AUTHORIZED_KEYS_PERMISSIONS } from "../api/gardencore/osc.ts";
import { isValidAuthorizedKey } from "../api/operations/sshkey.ts";
import { ROOT_OWNER, chownIfPossible, ensureDir, removeFile, under, writeFileAtomic } from "./files.ts";
import { GARDENER_HOME, GARDENER_USER, type UserManager } from "./users.ts";

export const SUDOERS_FILE = "/etc/sudoers.d/99-gardener-user";
export const SUDOERS_CONTENT = `${GARDENER_USER} ALL=(ALL) NOPASSWD:ALL\n`;
export const AUTHORIZED_KEYS = `${GARDENER_HOME}/.ssh/authorized_keys`;

export class InvalidKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidKeysError";
  }
}

/** Every line must be exactly one valid public key (defence in depth; the gardenlet validates too). */
export function checkKeys(keys: string): void {
  const lines = keys.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() !== line || !isValidAuthorizedKey(line)) throw new InvalidKeysError(`line ${i + 1} of the authorized keys is not exactly one valid public key`);
  });
}

export interface GardenerUserResult {
  /** Something on disk changed. */
  changed: boolean;
}

/** Installs `keys` for user gardener, or (undefined) removes them. Idempotent: unchanged files are not rewritten. */
export async function applyGardenerUser(root: string, users: UserManager, keys: string | undefined): Promise<GardenerUserResult> {
  if (keys === undefined) {
    const a = await removeFile(under(root, AUTHORIZED_KEYS_FILE));
    const b = await removeFile(under(root, AUTHORIZED_KEYS));
    return { changed: a || b };
  }
  checkKeys(keys);
  const content = Buffer.from(keys, "utf8");
  let changed = await writeFileAtomic(under(root, AUTHORIZED_KEYS_FILE), content, AUTHORIZED_KEYS_PERMISSIONS, ROOT_OWNER);
  const owner = await users.ensureUser(GARDENER_USER, GARDENER_HOME);
  // An existing home keeps its mode and owner; only a missing one is created (useradd normally did).
  const home = under(root, GARDENER_HOME);
  if ((await mkdir(home, { recursive: true, mode: 0o750 })) !== undefined) await chownIfPossible(home, owner);
  const sshDir = under(root, join(GARDENER_HOME, ".ssh"));
  await ensureDir(sshDir, 0o700, owner);
  changed = (await writeFileAtomic(under(root, AUTHORIZED_KEYS), content, 0o600, owner)) || changed;
  changed = (await writeFileAtomic(under(root, SUDOERS_FILE), Buffer.from(SUDOERS_CONTENT), 0o440, ROOT_OWNER)) || changed;
  return { changed };
}
