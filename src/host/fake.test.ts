import { test } from "node:test";
import assert from "node:assert/strict";
import { CommandError } from "./exec.ts";
import { FakeHost } from "./fake.ts";
import type { Host } from "./host.ts";
import { MachineBootError, MachineNotReadyError } from "./machine-status.ts";
import { HostSpecError } from "./names.ts";
import type { NftTable } from "./nft-render.ts";
import { recordId } from "./records.ts";

async function publicNetwork(host: Host): Promise<void> {
  await host.ensureNetns("ga-public", { owner: "landscape" });
  await host.ensureBridge({ name: "ga-br", netns: "ga-public", addresses: ["192.168.250.1/24"], owner: "landscape" });
}

const access: NftTable = {
  family: "inet",
  name: "bastion_access",
  sets: [{ name: "bastions4", type: "ipv4_addr", elements: ["10.250.0.5"] }],
  chains: [{ name: "input", base: { type: "filter", hook: "input", priority: 0, policy: "accept" }, rules: [{ protocol: "tcp", dport: 22, saddr: { set: "bastions4" }, verdict: "accept" }] }],
};

test("links need their namespaces and bridges, like on a real host", async () => {
  const host = new FakeHost();
  await assert.rejects(host.ensureBridge({ name: "ga-br", netns: "ga-public" }), CommandError);
  await publicNetwork(host);
  await host.ensureNetns("ga-client");
  await assert.rejects(host.ensureVeth({ name: "eth0", netns: "ga-client", peer: { name: "ga-c0", netns: "ga-public", master: "ga-nobridge" } }), CommandError);
  await host.ensureVeth({ name: "eth0", netns: "ga-client", addresses: ["192.168.250.9/24"], peer: { name: "ga-c0", netns: "ga-public", master: "ga-br" } });
  assert.ok(await host.linkExists("ga-c0", "ga-public"));
  await assert.rejects(host.ensureNetns("other"), HostSpecError);
  await host.deleteNetns("ga-client");
  assert.ok(!(await host.linkExists("ga-c0", "ga-public")), "the veth peer goes with the namespace");
  assert.ok(await host.linkExists("ga-br", "ga-public"));
});

test("tables: set contents are replaced as a whole, normalised; unknown tables and sets fail", async () => {
  const host = new FakeHost();
  await host.ensureNetns("ga-node");
  await host.applyTable("ga-node", access);
  const ref = { family: "inet" as const, name: "bastion_access" };
  assert.deepEqual(await host.getSetElements("ga-node", ref, "bastions4"), ["10.250.0.5"]);
  await host.replaceSetElements("ga-node", ref, [{ name: "bastions4", elements: ["10.250.0.7/32", "10.250.0.6", "10.250.0.6"] }]);
  assert.deepEqual(await host.getSetElements("ga-node", ref, "bastions4"), ["10.250.0.6", "10.250.0.7"]);
  await assert.rejects(host.replaceSetElements("ga-node", ref, [{ name: "nope", elements: [] }]), CommandError);
  await assert.rejects(host.replaceSetElements("ga-node", { family: "inet", name: "x" }, [{ name: "bastions4", elements: [] }]), CommandError);
  await assert.rejects(host.replaceSetElements("ga-node", ref, [{ name: "bastions4", elements: ["fd00::1"] }]), HostSpecError);
  assert.deepEqual(await host.listTables("ga-node"), [ref]);
  await host.deleteTable("ga-node", ref);
  assert.deepEqual(await host.listTables("ga-node"), []);
});

test("a machine gets its namespace, veths, routes and tables, keeps its spec, and is ready at once", async () => {
  const host = new FakeHost();
  await publicNetwork(host);
  const info = await host.startMachine({
    name: "b1",
    owner: "bastion/shoot--p--s/b1",
    networks: [{ bridge: "ga-br", bridgeNetns: "ga-public", address: "192.168.250.10/24", gateway: "192.168.250.1" }],
    userData: "#!/bin/bash -eu\necho hi\n",
    nftTables: [access],
    sshd: { hostKeyTypes: ["rsa", "ed25519"] },
  });
  assert.equal(info.ready, true);
  assert.equal(info.netns, "ga-m-b1");
  assert.deepEqual(info.sshd, { port: 22, listenAddresses: ["192.168.250.10"] });
  assert.deepEqual(info.hostKeys.map((k) => k.split(" ")[0]), ["ssh-ed25519", "ssh-rsa"]);
  assert.equal(host.machineSpec("b1").userData, "#!/bin/bash -eu\necho hi\n");
  assert.ok(await host.linkExists(info.interfaces[0]!.hostLink, "ga-public"));
  assert.deepEqual(await host.listTables("ga-m-b1"), [{ family: "inet", name: "bastion_access" }]);
  assert.equal((await host.startMachine({ name: "b1", networks: [] })).supervisor?.pid, info.supervisor?.pid, "a running machine is not rebuilt");
  await host.stopMachine("b1");
  assert.equal(await host.machineStatus("b1"), undefined);
  assert.ok(!(await host.linkExists(info.interfaces[0]!.hostLink, "ga-public")));
  assert.deepEqual((await host.listRecords()).map((r) => r.kind).sort(), ["link", "netns"]);
});

test("manual boot: not ready until completeBoot; a failed user-data or a crash rejects the wait", async () => {
  const host = new FakeHost({ boot: "manual" });
  await publicNetwork(host);
  const net = [{ bridge: "ga-br", bridgeNetns: "ga-public", address: "192.168.250.10/24" }];
  const started = await host.startMachine({ name: "b1", networks: net, wait: false });
  assert.equal(started.ready, false);
  await assert.rejects(host.waitMachineReady("b1", 5), MachineNotReadyError);
  const waiting = host.waitMachineReady("b1", 10_000);
  host.completeBoot("b1");
  assert.equal((await waiting).ready, true);

  await host.startMachine({ name: "b2", networks: [{ ...net[0]!, address: "192.168.250.11/24" }], wait: false });
  const failing = host.waitMachineReady("b2", 10_000);
  host.completeBoot("b2", 1);
  await assert.rejects(failing, MachineBootError);

  await host.startMachine({ name: "b3", networks: [{ ...net[0]!, address: "192.168.250.12/24" }], wait: false });
  const crashing = host.waitMachineReady("b3", 10_000);
  host.crashMachine("b3");
  await assert.rejects(crashing, MachineBootError);
  await assert.rejects(host.execInMachine("b3", "true", []), MachineBootError);
});

test("sweep keeps what keep() claims (machine parts follow their machine) and removes the rest", async () => {
  const host = new FakeHost();
  await publicNetwork(host);
  await host.startMachine({ name: "b1", owner: "bastion/a", networks: [{ bridge: "ga-br", bridgeNetns: "ga-public", address: "192.168.250.10/24" }] });
  await host.startMachine({ name: "b2", owner: "bastion/gone", networks: [{ bridge: "ga-br", bridgeNetns: "ga-public", address: "192.168.250.11/24" }] });
  await host.startProcess({ name: "vpn", command: "openvpn", netns: "ga-public", owner: "vpn" });
  const report = await host.sweep({ keep: (r) => r.owner === "landscape" || r.owner === "bastion/a" });
  assert.ok(report.removed.includes("machine/b2"));
  assert.ok(report.removed.includes("process/vpn"));
  assert.deepEqual((await host.listMachines()).map((m) => m.name), ["b1"]);
  assert.deepEqual((await host.inventory()).netns, ["ga-m-b1", "ga-public"]);
  await host.removeAll();
  const inv = await host.inventory();
  assert.deepEqual(inv, { netns: [], links: [], tables: [], mounts: [], processes: [] });
  assert.deepEqual(await host.listRecords(), []);
});

test("sweep finds objects whose records were lost, by prefix", async () => {
  const host = new FakeHost();
  await publicNetwork(host);
  await host.ensureBridge({ name: "ga-hostbr" });
  await host.applyTable(undefined, { family: "ip", name: "ga_nat_x", chains: [] });
  for (const r of await host.listRecords()) host.forgetRecord(recordId(r));
  assert.deepEqual(await host.listRecords(), []);
  await host.sweep({ keep: () => true });
  assert.deepEqual(await host.inventory(), { netns: [], links: [], tables: [], mounts: [], processes: [] });
});

test("sweep removes prefixed tables with lost records from namespaces that stay, and leaves other tables", async () => {
  const host = new FakeHost();
  await host.ensureNetns("ga-router", { owner: "landscape" });
  await host.ensureNat({ name: "s1", netns: "ga-router", sourceCidr: "10.250.0.0/16", outInterface: "up" });
  await host.applyTable("ga-router", { family: "inet", name: "filter", chains: [] });
  for (const r of await host.listRecords()) if (r.kind === "nftTable") host.forgetRecord(recordId(r));
  await host.sweep({ keep: (r) => r.owner === "landscape" });
  assert.deepEqual(await host.listTables("ga-router"), [{ family: "inet", name: "filter" }]);
});

test("failNext injects errors into the next calls of an operation; calls are logged", async () => {
  const host = new FakeHost();
  host.failNext("ensureNetns", new Error("disk full"));
  await assert.rejects(host.ensureNetns("ga-a"), /disk full/);
  await host.ensureNetns("ga-a");
  assert.deepEqual(host.calls, ["ensureNetns ga-a", "ensureNetns ga-a"]);
  host.onExec = (_where, cmd) => (cmd === "hostname" ? { stdout: "ga-a\n" } : { exitCode: 2 });
  assert.equal((await host.execInNetns("ga-a", "hostname", [])).stdout, "ga-a\n");
  await assert.rejects(host.execInNetns("ga-a", "false", []), CommandError);
});
