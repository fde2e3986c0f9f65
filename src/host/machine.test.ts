import { test } from "node:test";
import assert from "node:assert/strict";
import { planMachine } from "./machine.ts";
import { HostSpecError, Names } from "./names.ts";
import { keptSet } from "./sweep.ts";
import type { HostRecord } from "./records.ts";

const ctx = { names: new Names("ga-"), stateDir: "/var/lib/ga" };

test("a machine plan names everything after the machine and listens on its addresses", () => {
  const rec = planMachine(ctx, {
    name: "shoot--p--s-bastion-b1",
    owner: "bastion/shoot--p--s/b1",
    networks: [
      { bridge: "ga-public", address: "192.168.250.10/24" },
      { bridge: "ga-nodes", bridgeNetns: "ga-shoot", address: "10.250.0.5/16", gateway: "10.250.0.1" },
    ],
    sshd: { hostKeyTypes: ["ed25519"] },
  });
  assert.equal(rec.netns, "ga-m-shoot--p--s-bastion-b1");
  assert.equal(rec.hostname, "shoot--p--s-bastion-b1");
  assert.equal(rec.dir, "/var/lib/ga/machines/shoot--p--s-bastion-b1");
  assert.equal(rec.hostKeysDir, "/var/lib/ga/machines/shoot--p--s-bastion-b1/host-keys");
  assert.deepEqual(rec.interfaces.map((i) => [i.name, i.hostLink.length <= 15, i.bridge, i.bridgeNetns]), [
    ["eth0", true, "ga-public", undefined],
    ["eth1", true, "ga-nodes", "ga-shoot"],
  ]);
  assert.deepEqual(rec.sshd, { port: 22, listenAddresses: ["192.168.250.10", "10.250.0.5"], hostKeyFiles: ["ssh_host_ed25519_key"] });
  assert.equal(rec.owner, "bastion/shoot--p--s/b1");
});

test("invalid machine specs are refused before anything is created", () => {
  const net = { bridge: "ga-public", address: "192.168.250.10/24" };
  assert.throws(() => planMachine(ctx, { name: "Bad", networks: [] }), HostSpecError);
  assert.throws(() => planMachine(ctx, { name: "m", hostname: "a".repeat(65), networks: [] }), HostSpecError);
  assert.throws(() => planMachine(ctx, { name: "m", networks: [{ ...net, address: "192.168.250.10" }] }), HostSpecError);
  assert.throws(() => planMachine(ctx, { name: "m", networks: [{ ...net, interface: "eth0" }, { ...net, interface: "eth0" }] }), HostSpecError);
  assert.throws(() => planMachine(ctx, { name: "m", networks: [{ ...net, bridge: "a-very-long-bridge-name" }] }), HostSpecError);
  assert.throws(() => planMachine(ctx, { name: "m", networks: [{ ...net, routed: ["fd00::/64"] }] }), HostSpecError, "a routed range of another family");
  assert.throws(() => planMachine(ctx, { name: "m", networks: [{ ...net, routed: ["100.96.0.0/33"] }] }), "a routed range that is no CIDR");
});

test("a machine's routed ranges (a node's pod range) are kept normalised in its record, for the guard and its removal", () => {
  const rec = planMachine(ctx, { name: "w1", networks: [{ bridge: "ga-nodes", address: "10.250.0.3/16", routed: ["100.96.0.1/24"] }, { bridge: "ga-public", address: "192.168.250.10/24" }] });
  assert.deepEqual(rec.interfaces.map((i) => i.routed), [["100.96.0.0/24"], undefined]);
});

test("sweep keeps what keep() claims; parts follow their machine, orphans go", () => {
  const base = { state: "created" as const, createdAt: "" };
  const records: HostRecord[] = [
    { ...base, kind: "netns", name: "ga-public", owner: "landscape" },
    { ...base, kind: "machine", name: "b1", owner: "bastion/a", hostname: "b1", netns: "ga-m-b1", dir: "/d/b1", hostKeysDir: "/d/b1/k", interfaces: [], sshd: { port: 22, listenAddresses: [], hostKeyFiles: [] } },
    { ...base, kind: "netns", name: "ga-m-b1", parent: "machine/b1" },
    { ...base, kind: "netns", name: "ga-m-b2", parent: "machine/b2" },
    { ...base, kind: "netns", name: "ga-stray" },
  ];
  const kept = keptSet(records, (r) => r.owner === "landscape" || r.owner === "bastion/a");
  assert.deepEqual([...kept].sort(), ["machine/b1", "netns/ga-m-b1", "netns/ga-public"]);
  assert.deepEqual([...keptSet(records, () => false)], []);
});
