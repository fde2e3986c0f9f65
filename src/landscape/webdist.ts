// The dashboard's built frontend (web/dist, docs/terminals.md#the-local-landscape): `up` builds it with
// Vite when it is missing or older than any source of web/, so the dashboard it starts serves the
// frontend of the checked-out code. Vite prints its progress (modules transformed, chunks, time).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runInheritingSync } from "../host/spawn.ts";
import { REPO } from "./components.ts";

export const WEB = join(REPO, "web");
const SKIP = new Set(["dist", "node_modules"]);

/** The newest modification time (ms) of the files below dir, skipping dist/ and node_modules/. */
export function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSourceMs(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Why web/dist must be built (missing, stale), or undefined when it is current. */
export function webDistOutdated(web = WEB): string | undefined {
  const index = join(web, "dist", "index.html");
  if (!existsSync(index)) return "web/dist is missing";
  return statSync(index).mtimeMs < newestSourceMs(web) ? "web/dist is older than web/" : undefined;
}

/** Builds web/dist when it is missing or stale (`npm run build:dashboard`, with Vite's progress). */
export function ensureWebDist(out: (line: string) => void, web = WEB): void {
  const why = webDistOutdated(web);
  if (!why) return;
  out(`${why}: building the dashboard's frontend (vite build -c web/vite.config.mjs)`);
  const vite = join(REPO, "node_modules", "vite", "bin", "vite.js");
  if (!existsSync(vite)) throw new Error(`${why} and Vite is not installed (${vite}): run npm ci, which installs the dev dependencies`);
  const status = runInheritingSync(process.execPath, [vite, "build", "-c", join(web, "vite.config.mjs"), "--logLevel", "info"]);
  if (status !== 0) throw new Error(`building the dashboard's frontend failed (vite build exited with ${status}; see above)`);
  out("dashboard frontend built into web/dist");
}
