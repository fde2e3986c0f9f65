// The bridge guard's commands: one nft transaction that (re)defines the table and adds a port's MAC and
// addresses; removal deletes exactly those elements, and nothing is sent when the bridge's namespace is gone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingExec } from "./exec.ts";
import { guardPort, macFor, unguardPort } from "./guard.ts";
import { Names } from "./names.ts";
import { RecordStore } from "./records.ts";

async function withCtx(netnsList: string, fn: (ctx: Parameters<typeof guardPort>[0], exec: RecordingExec) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ga-guard-"));
  const exec = new RecordingExec((c) => (c.command === "ip" && c.args.join(" ") === "netns list" ? { stdout: netnsList } : undefined));
  try {
    await fn({ exec, records: new RecordStore(dir), names: new Names("ga-"), stateDir: dir, ids: { base: 1 << 28, count: 65536 } }, exec);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("macFor: a stable, locally administered unicast MAC per link name", () => {
  assert.equal(macFor("ga-m-a-0"), macFor("ga-m-a-0"));
  assert.notEqual(macFor("ga-m-a-0"), macFor("ga-m-a-1"));
  assert.match(macFor("x"), /^02(:[0-9a-f]{2}){5}$/);
});

test("guardPort pins the port's MAC and addresses in the bridge namespace and records the table with its bridge", async () => {
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    const mac = macFor("ga-m-a-0");
    await guardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac, addresses: ["192.168.250.10/24", "fd00::a/64"] });
    const call = exec.calls.find((c) => c.command === "nft")!;
    assert.equal(call.netns, "ga-pub");
    const script = call.input!;
    assert.match(script, /add table bridge ga_guard/);
    assert.match(script, /flush chain bridge ga_guard prerouting/);
    assert.match(script, new RegExp(`add element bridge ga_guard addr4 \\{ "ga-m-a-0" \\. ${mac} \\. 192\\.168\\.250\\.10 \\}`));
    assert.match(script, new RegExp(`add element bridge ga_guard addr6 \\{ "ga-m-a-0" \\. ${mac} \\. fd00::a \\}`));
    const [rec] = await ctx.records.list();
    assert.deepEqual([rec?.kind, rec?.parent], ["nftTable", "link/ga-pub/ga-pub"]);
  });
});

test("unguardPort deletes the port's elements, and does nothing when the bridge's namespace is gone", async () => {
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    await unguardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: ["192.168.250.10/24"] });
    assert.match(exec.calls.find((c) => c.command === "nft")!.input!, /delete element bridge ga_guard addr4 \{ "ga-m-a-0" \. [0-9a-f:]+ \. 192\.168\.250\.10 \}/);
  });
  await withCtx("", async (ctx, exec) => {
    await unguardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: ["192.168.250.10/24"] });
    assert.equal(exec.calls.filter((c) => c.command === "nft").length, 0);
  });
});

test("a malformed MAC is refused before anything is sent", async () => {
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    await assert.rejects(guardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: "02:00; flush ruleset", addresses: [] }), /invalid MAC/);
    assert.equal(exec.calls.length, 0);
  });
});
