// The shim's -w: an exec's command starts only once its client is connected, so output written at once
// (a shell's first prompt) reaches the client however late it connects. Needs the system's C compiler.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pollFor } from "../utils/poll.ts";
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

/** The process's state letter in /proc/<pid>/stat (R running, S sleeping, Z ended), Z once it is gone. */
function procState(pid: number): string {
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : ") Z";
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
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
    // The shim forks the command and writes its pid file before it first sleeps (in its poll), so once
    // it listens and sleeps, a missing pid file shows that it waits for a client rather than having
    // started the command, whose first output would be read and dropped (the race an exec -it lost
    // under load: the prompt was gone before the node agent connected).
    await pollFor("the shim to listen and sleep, or to end", () => procState(shim.pid!) === "Z" || (existsSync(socket) && procState(shim.pid!) === "S"), { intervalMs: 10 });
    assert.equal(existsSync(join(dir, `late-${tty}.exit.pid`)), false, "the command started before a client connected");
    const stream = await new ShimClient(socket).attach();
    const out = collect(stream.stdout);
    assert.equal(await stream.exit, 7);
    assert.match(await out, /first-line/);
    await closed;
  });
}
