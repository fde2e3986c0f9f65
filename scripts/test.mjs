#!/usr/bin/env node
// The whole test command: Debian packages, typecheck, lint, then every *.test.ts under src/,
// test/, bench/ and web/src/ with node's test runner (through tsx). Extra arguments filter test files by
// substring, e.g. `npm test -- storage` (typecheck and lint still run unless --tests-only).
import { spawn, spawnSync } from "node:child_process";
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
    "node_modules/eslint/bin/eslint.js", "--max-warnings", "0", "src", "test", "bench", "web/src/lib", "scripts", "bin", "eslint.config.js",
  ]);
}
const files = ["src", "test", "bench", "web/src"].flatMap(testFiles).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))).sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}

/**
 * Runs node's test runner on `list`; resolves with its exit code and counts. Its output is streamed,
 * or, with `buffered`, kept and printed by `flush()` (so two runs side by side do not interleave).
 */
function runTests(label, list, concurrency, buffered = false) {
  const chunks = [];
  const print = (text) => (buffered ? chunks.push(text) : process.stdout.write(text));
  print(`\n==> ${label} (${list.length} files)\n`);
  const started = Date.now();
  const done = new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-timeout=600000", ...list], {
      stdio: ["ignore", "pipe", buffered ? "pipe" : "inherit"],
    });
    const counts = { pass: 0, fail: 0, skipped: 0 };
    let tail = "";
    child.stderr?.on("data", (chunk) => print(chunk.toString("utf8")));
    child.stdout.on("data", (chunk) => {
      print(chunk.toString("utf8"));
      tail += chunk.toString("utf8");
      const lines = tail.split("\n");
      tail = lines.pop() ?? "";
      for (const line of lines) {
        const m = /^# (pass|fail|skipped) (\d+)$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    child.on("close", (code) => {
      print(`==> ${label}: ${Math.round((Date.now() - started) / 1000)} s\n`);
      resolve({ code: code ?? 1, counts });
    });
  });
  return { done, flush: () => process.stdout.write(chunks.splice(0).join("")) };
}

// Three groups. The e2e files (the real landscape, host machines) run one at a time: they share
// host-wide resources (the landscape's public network, host routes). They spend much of their time
// waiting (timeouts, heartbeats, machines booting), so the unit and integration tests run beside them,
// one file at a time too (two processes for two cores); the e2e output is printed after theirs. Last,
// alone: the attack tests (test/integration/hardening/), which assert that a bystander is served
// within 1 s while the server is attacked, which another test file's CPU load must not decide.
const isAttack = (f) => f.startsWith("test/integration/hardening/");
const isE2E = (f) => f.startsWith("test/e2e/");
const others = files.filter((f) => !isE2E(f) && !isAttack(f));
const e2e = files.filter(isE2E);
const attacks = files.filter(isAttack);
const results = [];
const side = [];
if (others.length) side.push(runTests("unit and integration tests, beside the e2e tests", others, e2e.length ? 1 : 2));
if (e2e.length) side.push(runTests("e2e tests, one file at a time", e2e, 1, others.length > 0));
results.push(...(await Promise.all(side.map((r) => r.done))));
for (const r of side) r.flush();
if (attacks.length) results.push(await runTests("attack tests, alone", attacks, 1).done);
const total = { pass: 0, fail: 0, skipped: 0 };
for (const r of results) for (const k of Object.keys(total)) total[k] += r.counts[k];
const failedRun = results.some((r) => r.code !== 0);
console.log(`\ntests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`);
process.exit(failedRun || total.fail > 0 ? 1 : 0);
