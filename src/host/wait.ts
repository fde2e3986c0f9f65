// Waiting for something the file system shows (a container's started and exit files): a check repeated at
// once after each change inotify reports in a directory, backing off to 50 ms polls when nothing is
// reported (or the directory cannot be watched).
import { type FSWatcher, watch } from "node:fs";

export interface DirChanges {
  /** True when the directory changed since the last call. */
  changed(): boolean;
  /** Resolves after ms, or at once on the next change. */
  next(ms: number): Promise<void>;
  close(): void;
}

/** Notes changes in a directory (inotify) so a wait wakes at once; a directory that cannot be watched is polled. */
export function watchDir(dir: string): DirChanges {
  let dirty = false;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, () => {
      dirty = true;
      wake?.();
    });
    watcher.on("error", () => watcher?.close());
  } catch {
    // no inotify (limit reached): the waits below poll
  }
  return {
    changed: () => {
      const d = dirty;
      dirty = false;
      return d;
    },
    next: (ms) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      }).finally(() => (wake = undefined)),
    close: () => watcher?.close(),
  };
}

/** Checks until check answers or timeoutMs passed: at once after a change in `dir` when given, else backing off to 50 ms. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, dir?: DirChanges): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    dir?.changed();
    const v = await check();
    if (v !== undefined || Date.now() > deadline) return v;
    if (dir?.changed()) continue; // changed while checking
    await (dir ? dir.next(delay) : new Promise((r) => setTimeout(r, delay)));
    delay = Math.min(delay * 2, 50);
  }
}
