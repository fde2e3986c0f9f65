// The operations' commands, checked against a RecordingExec that simulates which links and namespaces
// exist: what is created, in which namespace, and that a second call changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import { RecordingExec, type RecordedCall } from "./exec.ts";
import { deleteLink, ensureBridge, ensureRoute, ensureVeth } from "./links.ts";
import { HostSpecError, Names } from "./names.ts";
import { deleteNetns, ensureNetns } from "./netns.ts";
import { applyTable, replaceSetElements } from "./nft.ts";
import { ensureNat } from "./nat.ts";
import { RecordStore, recordId } from "./records.ts";

/** Simulates `ip`: namespaces and links come into existence when added. */
function simulatedIp() {
  const netns = new Set<string>();
  const links = new Set<string>();
  const key = (args: string[]) => (args[0] === "-n" ? `${args[1]}/` : "-/");
  const answer = (c: RecordedCall) => {
    if (c.command !== "ip") return undefined;
    const a = c.args;
    if (a[0] === "netns" && a[1] === "list") return { stdout: [...netns].map((n) => `${n} (id: 0)`).join("\n") };
    if (a[0] === "netns" && a[1] === "add") netns.add(a[2]!);
    if (a[0] === "netns" && a[1] === "del") netns.delete(a[2]!);
    if (a[0] === "netns" && a[1] === "pids") return { stdout: "" };
    const rest = a[0] === "-n" ? a.slice(2) : a;
    if (rest.join(" ") === "-o link show") return { stdout: [...links].filter((l) => l.startsWith(key(a))).map((l, i) => `${i + 2}: ${l.split("/")[1]}: <UP>`).join("\n") };
    if (rest[0] === "-o" && rest[2] === "show") return links.has(key(a) + rest[4]) ? { stdout: `2: ${rest[4]}: <UP>` } : { exitCode: 1, stderr: "does not exist" };
    if (rest[0] === "link" && rest[1] === "add") {
      const nsOf = (i: number) => (rest[i + 2] === "netns" ? rest[i + 3]! : "-");
      links.add(`${nsOf(2)}/${rest[3]}`);
      const peer = rest.indexOf("peer");
      if (peer > 0) links.add(`${rest[peer + 3] === "netns" ? rest[peer + 4] : "-"}/${rest[peer + 2]}`);
      if (a[0] === "-n") links.add(`${a[1]}/${rest[3]}`);
    }
    if (rest[0] === "link" && rest[1] === "del") links.delete(key(a) + rest[3]);
    return undefined;
  };
  return { netns, links, answer };
}

async function withCtx(fn: (ctx: HostContext, exec: RecordingExec) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ga-ops-"));
  const sim = simulatedIp();
  const exec = new RecordingExec(sim.answer);
  try {
    await fn({ exec, records: new RecordStore(dir), names: new Names("ga-"), stateDir: dir, ids: { base: 300_000_000, count: 65536 } }, exec);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const changes = (exec: RecordingExec) => exec.lines().filter((l) => / (add|del|replace|set) /.test(l) || l.includes("nft -f") || l.includes("sysctl -qw"));

test("a namespace and a bridge in it are created once; a second call adds nothing", async () => {
  await withCtx(async (ctx, exec) => {
    await ensureNetns(ctx, "ga-public", { owner: "landscape" });
    await ensureBridge(ctx, { name: "ga-br", netns: "ga-public", addresses: ["192.168.250.1/24"] });
    const first = changes(exec);
    assert.deepEqual(first, [
      "ip netns add ga-public",
      "ip -n ga-public link set dev lo up",
      "ip -n ga-public link add name ga-br type bridge",
      "ip -n ga-public addr replace 192.168.250.1/24 dev ga-br",
      "ip netns exec ga-public sysctl -qw net.ipv4.conf.ga-br.arp_notify=1",
      "ip -n ga-public link set dev ga-br up",
    ]);
    exec.calls.length = 0;
    await ensureNetns(ctx, "ga-public", { owner: "landscape" });
    await ensureBridge(ctx, { name: "ga-br", netns: "ga-public", addresses: ["192.168.250.1/24"] });
    assert.ok(!changes(exec).some((l) => l.includes(" add ")), changes(exec).join("\n"));
    const ids = (await ctx.records.list()).map(recordId).sort();
    // The bridge's anti-spoofing table is recorded with it (guard.ts).
    assert.deepEqual(ids, ["link/ga-public/ga-br", "netns/ga-public", "nftTable/ga-public/bridge/ga_guard_ga_br"]);
    assert.equal((await ctx.records.get("netns/ga-public"))?.owner, "landscape");
  });
});

test("a veth pair is created with both ends directly in their namespaces, enslaved and up", async () => {
  await withCtx(async (ctx, exec) => {
    await ensureVeth(ctx, { name: "eth0", netns: "ga-m-a", addresses: ["fd00::5/64", "10.0.0.5/24"], peer: { name: "ga-m-a-0", netns: "ga-public", master: "ga-br" } });
    // The bridge side comes up first, so that the machine end's gratuitous ARP (arp_notify) reaches it.
    assert.deepEqual(changes(exec), [
      "ip link add name eth0 netns ga-m-a type veth peer name ga-m-a-0 netns ga-public",
      "ip -n ga-public link set dev ga-m-a-0 master ga-br",
      "ip -n ga-public link set dev ga-m-a-0 up",
      "ip -n ga-m-a addr replace fd00::5/64 dev eth0 nodad",
      "ip -n ga-m-a addr replace 10.0.0.5/24 dev eth0",
      "ip netns exec ga-m-a sysctl -qw net.ipv4.conf.eth0.arp_notify=1",
      "ip -n ga-m-a link set dev eth0 up",
    ]);
    const rec = await ctx.records.get("link/ga-m-a/eth0");
    assert.deepEqual(rec?.kind === "link" ? rec.peer : undefined, { name: "ga-m-a-0", netns: "ga-public" });
    exec.calls.length = 0;
    await deleteLink(ctx, "ga-m-a-0", "ga-public");
    assert.deepEqual(changes(exec), ["ip -n ga-public link del dev ga-m-a-0"]);
    assert.equal(await ctx.records.get("link/ga-m-a/eth0"), undefined, "deleting the peer forgets the pair");
  });
});

test("host/ refuses to touch what it did not name", async () => {
  await withCtx(async (ctx, exec) => {
    await assert.rejects(ensureNetns(ctx, "default"), HostSpecError);
    await assert.rejects(ensureBridge(ctx, { name: "docker0" }), HostSpecError);
    await assert.rejects(deleteLink(ctx, "eth0"), HostSpecError);
    await assert.rejects(ensureRoute(ctx, { destination: "default", via: "10.0.0.1" }), HostSpecError);
    await assert.rejects(applyTable(ctx, undefined, { family: "inet", name: "filter", chains: [] }), HostSpecError);
    await assert.rejects(ensureNat(ctx, { name: "x", netns: "", sourceCidr: "10.0.0.0/8", outInterface: "ga-up" }), HostSpecError);
    assert.deepEqual(exec.calls, [], "nothing ran");
  });
});

test("tables and set contents go to nft -f - inside the namespace; NAT turns on forwarding there", async () => {
  await withCtx(async (ctx, exec) => {
    await applyTable(ctx, "ga-m-a", { family: "inet", name: "bastion", sets: [{ name: "in4", type: "ipv4_addr" }], chains: [] });
    await replaceSetElements(ctx, "ga-m-a", { family: "inet", name: "bastion" }, [{ name: "in4", elements: ["10.0.0.1/8"] }]);
    await ensureNat(ctx, { name: "s1", netns: "ga-router", sourceCidr: "10.250.0.0/16", outInterface: "ga-up" });
    const nft = exec.calls.filter((c) => c.command === "nft");
    assert.deepEqual(nft.map((c) => c.netns), ["ga-m-a", "ga-m-a", "ga-router"]);
    assert.match(nft[0]!.input!, /^table inet bastion\ndelete table inet bastion\ntable inet bastion \{/);
    assert.equal(nft[1]!.input, "flush set inet bastion in4\nadd element inet bastion in4 { 10.0.0.0/8 }\n");
    assert.ok(exec.lines().includes("ga-router: sysctl -q -w net.ipv4.ip_forward=1"));
    assert.ok(await ctx.records.get("nftTable/ga-router/ip/ga_nat_s1"));
  });
});

test("deleting a namespace deletes its links first and forgets everything recorded in it", async () => {
  await withCtx(async (ctx, exec) => {
    await ensureNetns(ctx, "ga-public");
    await ensureBridge(ctx, { name: "ga-br", netns: "ga-public" });
    await ensureNetns(ctx, "ga-m-a");
    await ensureVeth(ctx, { name: "eth0", netns: "ga-m-a", peer: { name: "ga-m-a-0", netns: "ga-public", master: "ga-br" } });
    await applyTable(ctx, "ga-public", { family: "inet", name: "t", chains: [] });
    exec.calls.length = 0;
    await deleteNetns(ctx, "ga-public");
    assert.deepEqual(changes(exec), ["ip netns del ga-public"]);
    assert.ok(exec.lines().includes("ip -n ga-public -force -batch -"));
    assert.equal(exec.calls.find((c) => c.args.includes("-batch"))?.input, "link del dev ga-br\nlink del dev ga-m-a-0\n", "one batch deletes every link");
    assert.deepEqual((await ctx.records.list()).map(recordId), ["netns/ga-m-a"]);
  });
});
