#!/usr/bin/env node
// The whole test command: Debian packages, typecheck, lint, then every *.test.ts under src/,
// test/ and bench/ with node's test runner (through tsx). Extra arguments filter test files by
// substring, e.g. `npm test -- storage` (typecheck and lint still run unless --tests-only).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const testsOnly = args.includes("--tests-only");
const filters = args.filter((a) => !a.startsWith("--"));

function run(label, cmd, cmdArgs) {
  console.log(`\n==> ${label}`);
  const r = spawnSync(cmd, cmdArgs, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`==> ${label} failed (exit code ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

function testFiles(dir) {
  const out = [];
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

run("setup (Debian packages)", process.execPath, ["scripts/setup.mjs", "--quiet"]);
if (!testsOnly) {
  run("typecheck", process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]);
  run("lint", process.execPath, [
    "node_modules/eslint/bin/eslint.js", "--max-warnings", "0", "src", "test", "bench", "scripts", "bin", "eslint.config.js",
  ]);
}
const files = ["src", "test", "bench"].flatMap(testFiles).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))).sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
run(`tests (${files.length} files)`, process.execPath, [
  "--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=600000", ...files,
]);
