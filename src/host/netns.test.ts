import assert from "node:assert/strict";
import { test } from "node:test";
import { HostExec, RecordingExec, parseNetnsList } from "./exec.ts";
import { listNetns, netnsExists } from "./netns.ts";

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
