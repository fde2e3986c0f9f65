// The bridge guard's commands: one nft transaction that (re)defines the table and adds a port's MAC and
// addresses; removal deletes exactly those elements, and nothing is sent when the bridge's namespace is gone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingExec } from "./exec.ts";
import { guardPort, macFor, portElements, unguardPort } from "./guard.ts";
import { Names } from "./names.ts";
import { RecordStore } from "./records.ts";

async function withCtx(netnsList: string, fn: (ctx: Parameters<typeof guardPort>[0], exec: RecordingExec) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ga-guard-"));
  // No guard table exists yet: `nft list table` fails as nft does for a missing table.
  const exec = new RecordingExec((c) => {
    if (c.command === "ip" && c.args.join(" ") === "netns list") return { stdout: netnsList };
    if (c.command === "nft" && c.args[0] === "list") return { exitCode: 1, stderr: "No such file or directory" };
    return undefined;
  });
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
    const scripts = exec.calls.filter((c) => c.command === "nft" && c.args[0] === "-f");
    assert.deepEqual(scripts.map((c) => c.netns), ["ga-pub", "ga-pub"]);
    const [table, ports] = scripts.map((c) => c.input!);
    assert.match(table!, /add table bridge ga_guard_ga_pub/);
    assert.match(table!, /flush chain bridge ga_guard_ga_pub prerouting/);
    assert.match(ports!, new RegExp(`add element bridge ga_guard_ga_pub addr4 \\{ "ga-m-a-0" \\. ${mac} \\. 192\\.168\\.250\\.10 \\}`));
    assert.match(ports!, new RegExp(`add element bridge ga_guard_ga_pub addr6 \\{ "ga-m-a-0" \\. ${mac} \\. fd00::a \\}`));
    const [rec] = await ctx.records.list();
    assert.deepEqual([rec?.kind, rec?.parent], ["nftTable", "link/ga-pub/ga-pub"]);
  });
});

test("a port's routed ranges (a node's pod range) go to the interval sets routed4/routed6, which the IP rules accept as sources but ARP does not", async () => {
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    const mac = macFor("ga-m-a-0");
    await guardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac, addresses: ["10.250.0.3/16"], routed: ["100.96.0.9/24", "fd01::/64"] });
    const [table, ports] = exec.calls.filter((c) => c.command === "nft" && c.args[0] === "-f").map((c) => c.input!);
    assert.match(table!, /add set bridge ga_guard_ga_pub routed4 \{ type ifname \. ether_addr \. ipv4_addr; flags interval; \}/);
    assert.match(table!, /ether type ip iifname \. ether saddr \. ip saddr != @addr4 iifname \. ether saddr \. ip saddr != @routed4 drop/);
    assert.match(table!, /ether type arp iifname \. arp saddr ether \. arp saddr ip != @addr4 drop/, "ARP claims only the machine's own address");
    assert.match(ports!, new RegExp(`add element bridge ga_guard_ga_pub routed4 \\{ "ga-m-a-0" \\. ${mac} \\. 100\\.96\\.0\\.0/24 \\}`));
    assert.match(ports!, new RegExp(`add element bridge ga_guard_ga_pub routed6 \\{ "ga-m-a-0" \\. ${mac} \\. fd01::/64 \\}`));
    assert.ok(portElements("t", "delete", { bridge: "b", port: "ga-m-a-0", mac, addresses: [], routed: ["100.96.0.0/24"] }).includes(`delete element bridge t routed4 { "ga-m-a-0" . ${mac} . 100.96.0.0/24 }`), "removal names the same element");
  });
  await assert.rejects(
    withCtx("ga-pub (id: 0)", (ctx) => guardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: [], routed: ["100.96.0.0/24 }; flush ruleset"] })),
    "a routed range that is no CIDR is refused",
  );
});

test("unguardPort deletes the port's elements, and does nothing when the bridge's table or namespace is gone", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ga-guard-"));
  const exec = new RecordingExec((c) => (c.command === "ip" ? { stdout: "ga-pub (id: 0)" } : undefined));
  try {
    const ctx = { exec, records: new RecordStore(dir), names: new Names("ga-"), stateDir: dir, ids: { base: 1 << 28, count: 65536 } };
    await unguardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: ["192.168.250.10/24"] });
    assert.match(exec.calls.find((c) => c.command === "nft" && c.args[0] === "-f")!.input!, /delete element bridge ga_guard_ga_pub addr4 \{ "ga-m-a-0" \. [0-9a-f:]+ \. 192\.168\.250\.10 \}/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    await unguardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: ["192.168.250.10/24"] });
    assert.equal(exec.calls.filter((c) => c.command === "nft" && c.args[0] === "-f").length, 0, "no table, nothing to delete");
  });
  await withCtx("", async (ctx, exec) => {
    await unguardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: macFor("ga-m-a-0"), addresses: ["192.168.250.10/24"] });
    assert.equal(exec.calls.filter((c) => c.command === "nft").length, 0);
  });
});

test("a malformed MAC is refused before anything is sent", async () => {
  await withCtx("ga-pub (id: 0)", async (ctx, exec) => {
    await assert.rejects(guardPort(ctx, "ga-pub", { bridge: "ga-pub", port: "ga-m-a-0", mac: "02:00; flush ruleset", addresses: [] }), /invalid MAC/);
    assert.equal(exec.calls.filter((c) => c.command === "nft" && c.args[0] === "-f").length <= 1, true, "no element is sent");
    assert.ok(!exec.calls.some((c) => c.input?.includes("flush ruleset")));
  });
});
