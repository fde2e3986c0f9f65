#!/usr/bin/env node
// The whole test command: Debian packages, typecheck and lint (side by side), then every *.test.ts
// under src/, test/, bench/ and web/src/ with node's test runner (through tsx). Extra arguments filter
// test files by substring, e.g. `npm test -- storage` (typecheck and lint still run unless --tests-only).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { Buffer } from "node:buffer";
import { tmpdir } from "node:os";
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

/** Runs the commands side by side, printing each one's output when it ends; exits if one failed. */
async function runSideBySide(steps) {
  const ended = await Promise.all(
    steps.map(({ label, cmd, cmdArgs }) => {
      const started = Date.now();
      const child = spawn(cmd, cmdArgs, { stdio: ["ignore", "pipe", "pipe"] });
      const out = [];
      child.stdout.on("data", (c) => out.push(c));
      child.stderr.on("data", (c) => out.push(c));
      return new Promise((resolve) => child.on("close", (code, signal) => resolve({ label, code, signal, out, s: Math.round((Date.now() - started) / 1000) })));
    }),
  );
  for (const r of ended) {
    process.stdout.write(`\n==> ${r.label} (${r.s} s)\n${Buffer.concat(r.out).toString("utf8")}`);
    if (r.code !== 0) console.error(`==> ${r.label} failed (exit code ${r.code ?? r.signal})`);
  }
  const failed = ended.find((r) => r.code !== 0);
  if (failed) process.exit(failed.code || 1);
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
  await runSideBySide([
    { label: "typecheck", cmd: process.execPath, cmdArgs: ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."] },
    {
      label: "lint",
      cmd: process.execPath,
      cmdArgs: ["node_modules/eslint/bin/eslint.js", "--max-warnings", "0", "src", "test", "bench", "web/src/lib", "scripts", "bin", "eslint.config.js"],
    },
  ]);
}
const files = ["src", "test", "bench", "web/src"].flatMap(testFiles).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))).sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}

const timesDir = mkdtempSync(join(tmpdir(), "test-times-"));
let jobCount = 0;

/**
 * Runs node's test runner on `list`, one file at a time, and resolves with its exit code, counts and
 * each file's time (scripts/file-times.mjs). Its output is streamed, or, with `buffered`, printed
 * whole when it ends (so two runs side by side do not interleave).
 */
function runTests(label, list, buffered) {
  const timesFile = join(timesDir, `${++jobCount}.jsonl`);
  const chunks = [];
  const print = (text) => (buffered ? chunks.push(text) : process.stdout.write(text));
  if (buffered) process.stdout.write(`==> started: ${label}\n`);
  print(`\n==> ${label} (${list.length} files)\n`);
  const started = Date.now();
  return new Promise((resolve) => {
    const reporters = ["--test-reporter=tap", "--test-reporter-destination=stdout", "--test-reporter=./scripts/file-times.mjs", `--test-reporter-destination=${timesFile}`];
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=600000", ...reporters, ...list], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const counts = { pass: 0, fail: 0, skipped: 0 };
    let tail = "";
    child.stderr.on("data", (chunk) => print(chunk.toString("utf8")));
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
      const ms = Date.now() - started;
      print(`==> ${label}: ${Math.round(ms / 1000)} s\n`);
      process.stdout.write(chunks.join(""));
      let times = [];
      try {
        times = readFileSync(timesFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      } catch {
        // no file ran to its start
      }
      resolve({ code: code ?? 1, counts, ms, times });
    });
  });
}

// The e2e files (the real landscape, host machines) run one at a time: they share host-wide
// resources (the landscape's public network, host routes). Two lanes, one per core: lane 1 runs the
// e2e files, lane 2 the unit and integration files in batches; once lane 1 is out of e2e files it
// takes the remaining batches, so neither core idles while the other still has a queue. Files that
// build network objects on this host (as root) are never run beside each other: their batches come
// first and only lane 2 takes them (beside the e2e files, as ever). Last, alone: the attack tests
// (test/integration/hardening/), which assert that a bystander is served within 1 s while the server
// is attacked, which another test file's CPU load must not decide.
const isAttack = (f) => f.startsWith("test/integration/hardening/");
const isE2E = (f) => f.startsWith("test/e2e/");
const onHost = (f) => /^(src\/host\/|src\/landscape\/control\.|test\/integration\/vpn\/|test\/integration\/robustness\/power-cut\.)/.test(f);
const others = files.filter((f) => !isE2E(f) && !isAttack(f));
const e2e = files.filter(isE2E);
const attacks = files.filter(isAttack);
const batchSize = 8;
const batchesOf = (list, kind) => Array.from({ length: Math.ceil(list.length / batchSize) }, (_, i) => ({ kind, files: list.slice(i * batchSize, (i + 1) * batchSize) }));
const e2eJobs = e2e.map((f, i) => ({ kind: "e2e", label: `e2e ${i + 1}/${e2e.length}`, files: [f] }));
// The integration files (the heavier ones) before the unit files, so the last batches, which may
// leave one lane idle while the other finishes, are short.
const rest = others.filter((f) => !onHost(f));
const integrationFirst = [...rest.filter((f) => f.startsWith("test/")), ...rest.filter((f) => !f.startsWith("test/"))];
const batchJobs = [...batchesOf(others.filter(onHost), "host"), ...batchesOf(integrationFirst, "others")];
batchJobs.forEach((b, i) => (b.label = `unit and integration batch ${i + 1}/${batchJobs.length}${b.kind === "host" ? " (on the host)" : ""}`));
const buffered = e2eJobs.length + batchJobs.length > 1;
const results = [];
const groupMs = { e2e: 0, others: 0 };
const started = Date.now();

/** Lane 1 takes the e2e files, then batches not on the host; lane 2 takes every batch in order. */
function nextJob(lane) {
  if (lane === 2) return batchJobs.shift();
  if (e2eJobs.length) return e2eJobs.shift();
  const i = batchJobs.findIndex((b) => b.kind !== "host");
  return i < 0 ? undefined : batchJobs.splice(i, 1)[0];
}

async function lane(n) {
  for (let job = nextJob(n); job; job = nextJob(n)) {
    const r = await runTests(`lane ${n}: ${job.label}`, job.files, buffered);
    groupMs[job.kind === "e2e" ? "e2e" : "others"] += r.ms;
    results.push(r);
  }
}

console.log(`\n==> ${others.length} unit and integration files in batches of ${batchSize} and ${e2e.length} e2e files one at a time, on two lanes`);
await Promise.all([lane(1), lane(2)]);
const s = (ms) => Math.round(ms / 1000);
console.log(`==> unit, integration and e2e: ${s(Date.now() - started)} s (e2e files ${s(groupMs.e2e)} s, unit and integration files ${s(groupMs.others)} s)`);
if (attacks.length) results.push(await runTests("attack tests, alone", attacks, false));

const times = results.flatMap((r) => r.times).sort((a, b) => b.ms - a.ms);
console.log("\n==> the slowest test files:");
for (const t of times.slice(0, 20)) console.log(`${String(Math.round(t.ms / 100) / 10).padStart(7)} s  ${t.file}${t.fail ? `  (${t.fail} failed)` : ""}`);
const idle = times.filter((t) => t.idleMs >= 2000);
if (idle.length) {
  console.log("\n==> test files whose process lived on after its last test (a slow file-level after hook, or a timer or handle left behind):");
  for (const t of idle) console.log(`${String(Math.round(t.idleMs / 100) / 10).padStart(7)} s  ${t.file}`);
}
rmSync(timesDir, { recursive: true, force: true });
const total = { pass: 0, fail: 0, skipped: 0 };
for (const r of results) for (const k of Object.keys(total)) total[k] += r.counts[k];
const failedRun = results.some((r) => r.code !== 0);
const failedFiles = times.filter((t) => t.fail > 0).map((t) => t.file);
if (failedFiles.length) {
  // Last in the output, where a CI log's tail shows it: what failed and why.
  console.log("\n==> what failed:");
  for (const t of times.filter((x) => x.fail > 0)) {
    console.log(`\n${t.file}:`);
    for (const f of t.failures ?? []) console.log(f.replace(/^/gm, "    "));
    if (t.leftOut > 0) console.log(`    (${t.leftOut} more: the file's output above has them)`);
  }
  console.log(`\nfailed in: ${failedFiles.join(", ")}`);
}
console.log(`\ntests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`);
process.exit(failedRun || total.fail > 0 ? 1 : 0);
