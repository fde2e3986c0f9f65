import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { newestSourceMs, webDistOutdated } from "./webdist.ts";

function tree(): string {
  const web = mkdtempSync(join(tmpdir(), "webdist-"));
  mkdirSync(join(web, "src", "lib"), { recursive: true });
  mkdirSync(join(web, "dist"));
  mkdirSync(join(web, "node_modules"));
  for (const f of ["index.html", "vite.config.mjs", "src/App.vue", "src/lib/terminal.js"]) writeFileSync(join(web, f), "x");
  return web;
}
const at = (path: string, s: number) => utimesSync(path, s, s);

test("web/dist is built when missing, when any source below web/ is newer, and not when it is current", () => {
  const web = tree();
  try {
    assert.equal(webDistOutdated(web), "web/dist is missing");
    writeFileSync(join(web, "dist", "index.html"), "built");
    for (const f of ["index.html", "vite.config.mjs", "src/App.vue", "src/lib/terminal.js"]) at(join(web, f), 1000);
    at(join(web, "dist", "index.html"), 2000);
    assert.equal(webDistOutdated(web), undefined);
    // A nested source changed after the build.
    at(join(web, "src", "lib", "terminal.js"), 3000);
    assert.equal(webDistOutdated(web), "web/dist is older than web/");
    assert.equal(newestSourceMs(web), 3_000_000);
    at(join(web, "dist", "index.html"), 4000);
    assert.equal(webDistOutdated(web), undefined);
    // Files in dist/ and node_modules/ are outputs and dependencies, not sources.
    writeFileSync(join(web, "dist", "late.js"), "x");
    writeFileSync(join(web, "node_modules", "late.js"), "x");
    assert.equal(newestSourceMs(web), 3_000_000);
  } finally {
    rmSync(web, { recursive: true, force: true });
  }
});
