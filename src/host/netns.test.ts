import assert from "node:assert/strict";
import { test } from "node:test";
import { HostExec, RecordingExec, parseNetnsList } from "./exec.ts";
import { listNetns, netnsExists, deleteNetns } from "./netns.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import { Names } from "./names.ts";
import { RecordStore } from "./records.ts";

test("namespace lookups ask the Exec without a process where it can, `ip netns list` otherwise", async () => {
  const plain = new RecordingExec((c) => (c.command === "ip" ? { stdout: "ga-pub (id: 0)\nga-m-b1\n" } : undefined));
  assert.deepEqual(await listNetns(plain), ["ga-pub", "ga-m-b1"]);
  assert.equal(await netnsExists(plain, "ga-m-b1"), true);
  assert.equal(plain.calls.length, 2);

  const direct = new RecordingExec();
  Object.assign(direct, { netnsNames: () => Promise.resolve(["ga-pub"]) });
  assert.equal(await netnsExists(direct, "ga-pub"), true);
  assert.equal(await netnsExists(direct, "ga-m-b1"), false);
  assert.deepEqual(direct.calls, [], "no command ran");
});

test("HostExec's namespaces are the ones `ip netns list` prints", async () => {
  const exec = new HostExec();
  const listed = async (): Promise<string[]> => parseNetnsList((await exec.run("ip", ["netns", "list"])).stdout).sort();
  // Other programs on the host may add or remove namespaces meanwhile: compare while the list holds still.
  for (let i = 0; ; i++) {
    const before = await listed();
    const names = await exec.netnsNames();
    if (JSON.stringify(await listed()) !== JSON.stringify(before) && i < 10) continue;
    assert.deepEqual(names, before);
    return;
  }
});

/** An Exec whose `ip netns del` fails as if another deleter had won the race (or not, when `stays`). */
function racedExec(stays: boolean): RecordingExec {
  let gone = false;
  return new RecordingExec((c) => {
    if (c.args[0] === "netns" && c.args[1] === "list") return { stdout: gone && !stays ? "" : "ga-vpn\n" };
    if (c.args[0] === "netns" && c.args[1] === "pids") return { stdout: "" };
    if (c.args.includes("link") && c.args.includes("show")) return { stdout: "1: lo: <LOOPBACK>\n" };
    if (c.args[0] === "netns" && c.args[1] === "del") {
      gone = true;
      return { exitCode: 1, stderr: 'Cannot remove namespace file "/run/netns/ga-vpn": No such file or directory' };
    }
    return undefined;
  });
}

test("deleting a namespace that another deleter removed meanwhile succeeds; one that stays is an error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ga-netns-"));
  const ctx = (exec: RecordingExec): HostContext => ({ exec, records: new RecordStore(dir), names: new Names("ga-"), stateDir: dir, ids: { base: 300_000_000, count: 65536 } });
  try {
    await deleteNetns(ctx(racedExec(false)), "ga-vpn");
    await assert.rejects(deleteNetns(ctx(racedExec(true)), "ga-vpn"), /ip netns del ga-vpn: Cannot remove namespace file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
