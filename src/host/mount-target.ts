// Where a container's mount target really is inside its root (runc's securejoin): each existing symlink on
// the way is followed as the container will see it, an absolute link from the container's root and ".."
// never above it. The root is built over the node's own directories, so the node's links are the
// container's: /var/run -> /run must land on the container's /run, not on the node's.
import { lstat, readlink } from "node:fs/promises";
import { posix } from "node:path";

const MAX_LINKS = 40;

export interface LinkReader {
  /** The link's text when the path (absolute, in the root) is a symlink; undefined otherwise or when it does not exist. */
  readLink(path: string): Promise<string | undefined>;
}

/** Reads links of the node's root ("/"). */
export const nodeLinks: LinkReader = {
  async readLink(path) {
    const st = await lstat(path).catch(() => undefined);
    return st?.isSymbolicLink() ? readlink(path) : undefined;
  },
};

/** The target, absolute and clean, with every symlink resolved inside the root. */
export async function resolveInRoot(target: string, links: LinkReader = nodeLinks): Promise<string> {
  const pending = target.split("/").filter((s) => s !== "" && s !== ".");
  const done: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "..") {
      done.pop();
      continue;
    }
    const path = `/${[...done, part].join("/")}`;
    const link = await links.readLink(path);
    if (link === undefined) {
      done.push(part);
      continue;
    }
    if (++hops > MAX_LINKS) throw new Error(`mount target ${target}: too many levels of symbolic links`);
    if (link.startsWith("/")) done.length = 0;
    pending.unshift(...link.split("/").filter((s) => s !== "" && s !== "."));
  }
  return posix.join("/", ...done);
}
