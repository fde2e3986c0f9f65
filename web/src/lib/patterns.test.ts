// Browsers compile an input's `pattern` attribute as `^(?:<pattern>)$` with the `v` flag, where a
// character class must escape `( ) [ ] { } / - \ |`; an invalid pattern is ignored with a console
// error ("Pattern attribute value ... is not a valid regular expression"). Every pattern of the
// frontend must compile that way and accept and refuse what its field means.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const WEB = fileURLToPath(new URL("../../", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "dist" ? [] : files(p);
    return /\.(vue|html|js)$/.test(e.name) ? [p] : [];
  });
}

/** Every static `pattern="..."` attribute of the frontend's templates, with its file. */
function patterns(): { file: string; pattern: string }[] {
  return files(WEB).flatMap((file) => [...readFileSync(file, "utf8").matchAll(/\spattern="([^"]*)"/g)].map((m) => ({ file, pattern: m[1]! })));
}

test("every pattern attribute compiles as browsers compile it (v flag)", () => {
  const found = patterns();
  assert.ok(found.length > 0, "the project namespace field has a pattern");
  for (const { file, pattern } of found) {
    assert.doesNotThrow(() => new RegExp(`^(?:${pattern})$`, "v"), `${file}: pattern ${pattern}`);
  }
  assert.equal(/:pattern=/.test(files(WEB).map((f) => readFileSync(f, "utf8")).join("\n")), false, "bound patterns are not checked here");
});

test("the project namespace pattern accepts DNS labels only", () => {
  const [ns] = patterns().filter((p) => p.file.endsWith("ProjectsView.vue"));
  assert.ok(ns);
  const re = new RegExp(`^(?:${ns.pattern})$`, "v");
  for (const ok of ["garden-local", "a", "garden-p1"]) assert.equal(re.test(ok), true, ok);
  for (const bad of ["-a", "a-", "Garden", "a_b", "a.b", ""]) assert.equal(re.test(bad), false, bad);
});
