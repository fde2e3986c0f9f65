// The launchers' bundle cache (scripts/bundle.mjs): built on first use, reused while its inputs are
// unchanged, rebuilt when one changes, and none at all (so the launcher falls back to tsx) when the
// sources do not build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error: a plain ES module of the launchers, without type declarations
import { bundleFor } from "../scripts/bundle.mjs";

type BundleFor = (entry: string, o: { root: string; cacheDir: string }) => Promise<string | undefined>;
const bundle = bundleFor as BundleFor;

function output(file: string): string {
  return execFileSync(process.execPath, [file], { encoding: "utf8" });
}

test("a bundle is built once, reused while its inputs are unchanged and rebuilt when one changes", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "bundle-test-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const o = { root, cacheDir: join(root, "cache") };
  writeFileSync(join(root, "main.ts"), 'import { word } from "./word.ts";\nconst n: number = 2;\nconsole.log(word.repeat(n));\n');
  writeFileSync(join(root, "word.ts"), 'export const word: string = "ab";\n');

  const first = await bundle("main.ts", o);
  assert.ok(first);
  assert.equal(output(first), "abab\n");
  const built = statSync(first).mtimeMs;

  assert.equal(await bundle("main.ts", o), first);
  assert.equal(statSync(first).mtimeMs, built, "fresh: not rebuilt");

  writeFileSync(join(root, "word.ts"), 'export const word: string = "xyz";\n');
  assert.equal(await bundle("main.ts", o), first);
  assert.equal(output(first), "xyzxyz\n", "an imported file changed: rebuilt");

  writeFileSync(join(root, "word.ts"), "export const word: string = ;\n");
  assert.equal(await bundle("main.ts", o), undefined, "does not build: no bundle, the launcher uses tsx");
});
