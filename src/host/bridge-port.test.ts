// ensureBridgePort against a RecordingExec: one shell for a new namespace, with the records the
// idempotent operations would write; the idempotent way when something is in the way; refused input.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { deleteBridgePort, ensureBridgePort, type BridgePortSpec } from "./bridge-port.ts";
import type { HostContext } from "./context.ts";
import { RecordingExec, type FakeAnswer } from "./exec.ts";
import { HostSpecError, Names } from "./names.ts";
import { RecordStore, recordId } from "./records.ts";

const spec: BridgePortSpec = { netns: "ga-pod-1", ifname: "eth0", address: "10.96.1.2/24", gateway: "10.96.1.1", bridge: "ga-cbr0", hostLink: "ga-veth1", owner: "pod/1" };

async function withCtx(answer: FakeAnswer, fn: (ctx: HostContext, exec: RecordingExec) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ga-bridge-port-"));
  const exec = new RecordingExec(answer);
  try {
    await fn({ exec, records: new RecordStore(dir), names: new Names("ga-"), stateDir: dir, ids: { base: 300_000_000, count: 65536 } }, exec);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("a new namespace gets its port on the bridge from one shell, recorded as the idempotent operations record it", async () => {
  const batches: string[] = [];
  const answer: FakeAnswer = (c) => {
    // The batch files exist while the shell runs (and are removed after).
    if (c.command === "sh") batches.push(readFileSync(c.args[4]!, "utf8"), readFileSync(c.args[5]!, "utf8"));
    return undefined;
  };
  await withCtx(answer, async (ctx, exec) => {
    await ensureBridgePort(ctx, spec);
    assert.equal(exec.calls.length, 1);
    const [c] = exec.calls;
    assert.equal(c!.command, "sh");
    assert.deepEqual(c!.args.slice(2, 4), ["sh", "ga-pod-1"]);
    assert.equal(c!.args[6], "eth0");
    assert.match(c!.args[1]!, /ip netns add "\$1" \|\| exit 10\nip -batch "\$2" \|\| exit 11\nexec nsenter --net="\/run\/netns\/\$1"/);
    assert.deepEqual(batches, [
      "link add name ga-veth1 type veth peer name eth0 netns ga-pod-1\nlink set dev ga-veth1 master ga-cbr0\nlink set dev ga-veth1 up\n",
      "link set dev lo up\naddr replace 10.96.1.2/24 dev eth0\nlink set dev eth0 up\nroute replace default via 10.96.1.1 dev eth0\n",
    ]);
    assert.equal(existsSync(c!.args[4]!) || existsSync(c!.args[5]!), false, "the batch files are removed");
    const records = await ctx.records.list();
    assert.deepEqual(records.map((r) => `${recordId(r)} ${r.state} ${r.owner}`).sort(), [
      "link/ga-pod-1/eth0 created pod/1",
      "netns/ga-pod-1 created pod/1",
      "route/ga-pod-1/default created pod/1",
    ]);
    const link = records.find((r) => r.kind === "link");
    assert.deepEqual(link?.kind === "link" ? link.peer : undefined, { name: "ga-veth1" });
  });
});

test("a leftover link on the bridge's side sends it the idempotent way, which replaces the leftover", async () => {
  let failedBatch = false;
  const answer: FakeAnswer = (c) => {
    if (c.command === "sh" && !failedBatch) {
      failedBatch = true;
      return { exitCode: 11, stderr: "RTNETLINK answers: File exists" };
    }
    if (c.args.includes("show") && c.args.includes("ga-veth1")) return { stdout: "5: ga-veth1@if2: <UP>" };
    if (c.args.includes("show")) return { exitCode: 1 };
    return undefined;
  };
  await withCtx(answer, async (ctx, exec) => {
    await ensureBridgePort(ctx, spec);
    const lines = exec.lines();
    assert.ok(lines.includes("ip link del dev ga-veth1"), lines.join("\n"));
    assert.ok(lines.includes("ip link add name eth0 netns ga-pod-1 type veth peer name ga-veth1"), lines.join("\n"));
    assert.ok(lines.includes("ip -n ga-pod-1 route replace default via 10.96.1.1 dev eth0"), lines.join("\n"));
    assert.ok((await ctx.records.list()).every((r) => r.state === "created"));
  });
});

test("deletion is one shell and removes the namespace's records only, by id", async () => {
  await withCtx(() => undefined, async (ctx, exec) => {
    await ensureBridgePort(ctx, spec);
    await ensureBridgePort(ctx, { ...spec, netns: "ga-pod-2", hostLink: "ga-veth2", address: "10.96.1.3/24" });
    exec.calls.length = 0;
    await deleteBridgePort(ctx, spec);
    assert.deepEqual(exec.lines().map((l) => l.split("\n")[0]), ["sh -c pids=$(ip netns pids \"$1\" 2>/dev/null) || true"]);
    assert.deepEqual(exec.calls[0]!.args.slice(2), ["sh", "ga-pod-1", "ga-veth1"]);
    assert.deepEqual((await ctx.records.list()).map((r) => recordId(r)).sort(), ["link/ga-pod-2/eth0", "netns/ga-pod-2", "route/ga-pod-2/default"]);
    await assert.rejects(deleteBridgePort(ctx, { netns: "ga-pod-2", hostLink: "eth0" }), HostSpecError);
  });
});

test("names without the prefix, bad interface names and addresses are refused before anything runs", async () => {
  await withCtx(() => undefined, async (ctx, exec) => {
    for (const bad of [{ netns: "pod-1" }, { hostLink: "veth1" }, { ifname: "eth 0" }, { address: "10.96.1.2" }, { address: "fd00::2/64" }, { gateway: "10.96.1.1/24" }]) {
      await assert.rejects(ensureBridgePort(ctx, { ...spec, ...bad }), HostSpecError, JSON.stringify(bad));
    }
    assert.equal(exec.calls.length, 0);
  });
});
