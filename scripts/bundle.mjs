// Runs a TypeScript entry point from a cached esbuild bundle (ADR 0006). Loading the sources through
// tsx costs about a second per start (every import goes through its loader hooks, and
// @kubernetes/client-node alone is a thousand modules); one pre-bundled file starts in about 0.15 s.
// The bundle lives in node_modules/.cache/gardener-access/ with the list of its inputs and their sizes
// and modification times; any change to an input rebuilds it on the next start, so editing the
// sources never runs stale code. Without esbuild, or without a writable cache, the entry point runs
// through tsx as before.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** "size:mtime" of each input (relative to root); undefined when one is missing. */
function stamps(root, inputs) {
  const out = {};
  for (const file of inputs) {
    try {
      const st = statSync(join(root, file));
      out[file] = `${st.size}:${st.mtimeMs}`;
    } catch {
      return undefined;
    }
  }
  return out;
}

function isFresh(root, manifestFile) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  } catch {
    return false;
  }
  const now = stamps(root, Object.keys(manifest.inputs ?? {}));
  return now !== undefined && Object.entries(manifest.inputs).every(([f, s]) => now[f] === s);
}

async function build(root, entry, out, manifestFile) {
  const esbuild = await import("esbuild");
  const tmp = `${out}.${process.pid}.tmp`;
  const result = await esbuild.build({
    entryPoints: [join(root, entry)],
    absWorkingDir: root,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: tmp,
    metafile: true,
    logLevel: "silent",
    // CommonJS dependencies inside an ES module bundle still call require().
    banner: { js: 'import { createRequire as __gaCreateRequire } from "node:module"; const require = __gaCreateRequire(import.meta.url);' },
  });
  const inputs = stamps(root, Object.keys(result.metafile.inputs).map((f) => relative(root, resolve(root, f))));
  if (inputs === undefined) throw new Error("an input vanished while bundling");
  renameSync(tmp, out);
  const manifestTmp = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(manifestTmp, JSON.stringify({ entry, inputs }) + "\n");
  renameSync(manifestTmp, manifestFile);
}

/**
 * The bundle of `entry` (a path relative to `root`, by default this repository), built when missing or
 * stale; undefined when it cannot be built.
 */
export async function bundleFor(entry, { root = repoRoot, cacheDir = join(root, "node_modules", ".cache", "gardener-access") } = {}) {
  const name = entry.replace(/^src\//, "").replace(/\.ts$/, "").replaceAll("/", "-");
  const out = join(cacheDir, `${name}.mjs`);
  const manifestFile = join(cacheDir, `${name}.inputs.json`);
  if (isFresh(root, manifestFile)) return out;
  try {
    mkdirSync(cacheDir, { recursive: true });
    await build(root, entry, out, manifestFile);
    return out;
  } catch {
    return undefined;
  }
}

/** Imports `entry` from its bundle, or through tsx when there is none. */
export async function run(entry) {
  const bundle = process.env.GARDENER_ACCESS_NO_BUNDLE ? undefined : await bundleFor(entry);
  if (bundle !== undefined) {
    await import(pathToFileURL(bundle).href);
    return;
  }
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(repoRoot, entry)).href);
}
