// startModuleThread in processes started as our launchers and tests start them: a TypeScript module
// runs in the thread, also when the process has node options a thread cannot have (V8's).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const moduleThread = new URL("./module-thread.ts", import.meta.url).href;

/** Writes a TypeScript module for the thread and a script that starts it and prints what it posts. */
function scripts(dir: string, registerTsx: boolean): string {
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(join(dir, "entry.ts"), 'import { parentPort } from "node:worker_threads";\nconst answer: number = 6 * 7;\nparentPort!.postMessage(`${answer} ${process.execArgv.join(" ")}`.trim());\n');
  const main = join(dir, "main.mjs");
  writeFileSync(
    main,
    [
      registerTsx ? `(await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})).register();` : "",
      `const { startModuleThread } = await import(${JSON.stringify(moduleThread)});`,
      `const thread = startModuleThread(${JSON.stringify(pathToFileURL(join(dir, "entry.ts")).href)});`,
      'thread.once("message", (m) => { console.log(m); void thread.terminate(); });',
      'thread.once("error", (err) => { console.error(err.message); process.exitCode = 1; });',
    ].join("\n"),
  );
  return main;
}

for (const c of [
  { name: "a launcher that registers tsx itself (bin/), with a V8 flag", registerTsx: true, nodeArgs: ["--max-old-space-size=256"], threadArgs: "--max-old-space-size=256" },
  { name: "node --import tsx (the tests), with a V8 flag", registerTsx: false, nodeArgs: ["--import", "tsx", "--max-old-space-size=256"], threadArgs: "" },
  { name: "node --import tsx with an option a thread may have", registerTsx: false, nodeArgs: ["--import", "tsx", "--no-warnings"], threadArgs: "--no-warnings" },
]) {
  test(`a TypeScript module runs in the thread: ${c.name}`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "module-thread-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const { stdout } = await run(process.execPath, [...c.nodeArgs, scripts(dir, c.registerTsx)], { cwd: repoRoot });
    // The thread ran the module (tsx registered there) and has the options it was given or inherited.
    assert.equal(stdout.trim(), `42 ${c.threadArgs}`.trim());
  });
}
