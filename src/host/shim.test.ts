// The shim's -w: an exec's command starts only once its client is connected, so output written at once
// (a shell's first prompt) reaches the client however late it connects. Needs the system's C compiler.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { HostExec } from "./exec.ts";
import { shimBinary } from "./shim.ts";
import { ShimClient } from "./shim-client.ts";

let dir = "";
let binary = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "shim-test-"));
  binary = await shimBinary(new HostExec(), dir);
});
after(() => rm(dir, { recursive: true, force: true }));

async function socketAppears(path: string): Promise<void> {
  for (let i = 0; i < 500 && !(await stat(path).catch(() => undefined)); i++) await sleep(10);
}

function collect(stream: NodeJS.ReadableStream): Promise<string> {
  let out = "";
  stream.on("data", (d: Buffer) => (out += String(d)));
  return new Promise((resolve) => stream.once("end", () => resolve(out)));
}

for (const tty of [true, false]) {
  test(`with -w${tty ? " -t" : ""}, output written at the command's start reaches a client that connects late`, async () => {
    const socket = join(dir, `late-${tty}.sock`);
    const shim = spawn(binary, ["-s", socket, "-x", join(dir, `late-${tty}.exit`), ...(tty ? ["-t"] : []), "-w", "--", "sh", "-c", "echo first-line; exit 7"], { stdio: "ignore" });
    const closed = new Promise((resolve) => shim.once("close", resolve));
    await socketAppears(socket);
    // Long enough for the command to have run and ended if it had not waited for this client (the race an
    // exec -it lost under load: the prompt was read and dropped before the node agent connected).
    await sleep(300);
    const stream = await new ShimClient(socket).attach();
    const out = collect(stream.stdout);
    assert.equal(await stream.exit, 7);
    assert.match(await out, /first-line/);
    await closed;
  });
}
