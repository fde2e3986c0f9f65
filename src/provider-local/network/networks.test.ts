import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeHost, renderTable } from "../../host/index.ts";
import { MemoryAddressBook } from "./addresses.ts";
import { LocalNetworks, ROUTER_PUBLIC_IF } from "./networks.ts";

function setup() {
  const host = new FakeHost();
  return { host, networks: new LocalNetworks({ host, addresses: new MemoryAddressBook() }) };
}

test("public network: a bridge with the gateway address in its own namespace; users attach with their own address", async () => {
  const { host, networks } = setup();
  const p = await networks.ensurePublic();
  assert.deepEqual(p, { netns: "ga-public", bridge: "ga-public", cidr: "198.18.0.0/16", gateway: "198.18.0.1", prefixLength: 16 });
  const alice = await networks.attachUser("alice");
  const bob = await networks.attachUser("bob");
  assert.deepEqual([alice, bob], [{ netns: "ga-u-alice", address: "198.18.0.2" }, { netns: "ga-u-bob", address: "198.18.0.3" }]);
  assert.ok(host.state.links.get(host.state.linkKey("ga-u-alice", "ga-public"))?.master === "ga-public");
  await networks.detachUser("alice");
  assert.equal(await host.netnsExists("ga-u-alice"), false);
  assert.equal((await networks.attachUser("carol")).address, "198.18.0.2");
});

test("node networks: carved per shoot, a router with one-way NAT to the public network, removable without trace", async () => {
  const { host, networks } = setup();
  const a = await networks.ensureNodeNetwork("shoot--p--a");
  const b = await networks.ensureNodeNetwork("shoot--p--b");
  assert.equal(a.cidr, "10.250.0.0/24");
  assert.equal(b.cidr, "10.250.1.0/24");
  assert.equal(a.gateway, "10.250.0.1");
  assert.deepEqual(await networks.ensureNodeNetwork("shoot--p--a"), a, "idempotent");
  await assert.rejects(networks.ensureNodeNetwork("shoot--p--a", "10.250.9.0/24"), /is 10\.250\.0\.0\/24, not 10\.250\.9\.0\/24/);
  const tables = await host.listTables(a.netns);
  assert.equal(tables.length, 1);
  const nat = host.state.tables.get(`${a.netns}/ip/${tables[0]!.name}`)!;
  const text = renderTable(nat);
  assert.match(text, new RegExp(`oifname "${ROUTER_PUBLIC_IF}" ip saddr 10\\.250\\.0\\.0/24 masquerade`));
  assert.match(text, new RegExp(`iifname "${ROUTER_PUBLIC_IF}" ip daddr 10\\.250\\.0\\.0/24 drop`));
  assert.equal(await networks.allocateNode("shoot--p--a", "worker/w1"), "10.250.0.2");

  await networks.deleteNodeNetwork("shoot--p--a");
  assert.equal(await host.netnsExists(a.netns), false);
  assert.equal(await networks.nodeNetwork("shoot--p--a"), undefined);
  const book = await networks.addresses.read();
  assert.deepEqual(Object.keys(book["public"] ?? {}), ["router/shoot--p--b"]);
  assert.equal(book["nodes/shoot--p--a"], undefined);
  assert.deepEqual((await host.listRecords()).filter((r) => r.owner === "network/shoot--p--a"), []);
  await assert.rejects(networks.allocateNode("shoot--p--a", "x"), /does not exist/);
});

test("concurrent ensures of one node network do not race", async () => {
  const { host, networks } = setup();
  const nets = await Promise.all([1, 2, 3].map(() => networks.ensureNodeNetwork("shoot--p--a", "10.250.0.0/24")));
  assert.ok(nets.every((n) => n.cidr === "10.250.0.0/24"));
  assert.equal(Object.keys((await networks.addresses.read())["public"] ?? {}).length, 1);
  assert.equal(await host.netnsExists("ga-nodes-shoot--p--a"), true);
});

test("ensured networks are not rechecked link by link while their namespaces exist; a vanished one is rebuilt", async () => {
  const { host, networks } = setup();
  const a = await networks.ensureNodeNetwork("shoot--p--a", "10.250.0.0/24");
  const changes = (): string[] => host.calls.filter((c) => /^(ensure|apply|delete)/.test(c));
  const before = changes().length;
  await networks.ensurePublic();
  assert.deepEqual(await networks.ensureNodeNetwork("shoot--p--a"), a);
  assert.equal(changes().length, before, "no host changes for networks ensured before");

  // Gone behind the provider's back: the public namespace (the shoot's uplink hangs on its bridge).
  await host.deleteNetns("ga-public");
  await networks.ensureNodeNetwork("shoot--p--a");
  assert.equal(await host.netnsExists("ga-public"), true);
  assert.ok(host.state.links.get(host.state.linkKey(host.names.link("r", "shoot--p--a"), "ga-public")), "the router's uplink is back");

  // Gone: the shoot's router namespace.
  await host.deleteNetns(a.netns);
  await networks.ensureNodeNetwork("shoot--p--a");
  assert.equal(await host.netnsExists(a.netns), true);
  assert.equal((await host.listTables(a.netns)).length, 1, "NAT again");
});

test("a pool is full at the bridge's port limit, whatever room its CIDR has; the error names the network", async () => {
  const host = new FakeHost();
  const networks = new LocalNetworks({ host, addresses: new MemoryAddressBook(), maxPorts: 3 });
  await networks.ensureNodeNetwork("shoot--p--a", "10.250.0.0/16");
  for (const k of ["a", "b"]) await networks.allocatePublic(k);
  // The router's uplink is the first port of the public bridge.
  await assert.rejects(networks.allocatePublic("c"), (err: Error) => err.name === "AddressExhaustedError" && /198\.18\.0\.0\/16 \(the public network\): it holds at most 3/.test(err.message));
  for (const k of ["a", "b", "c"]) await networks.allocateNode("shoot--p--a", k);
  await assert.rejects(networks.allocateNode("shoot--p--a", "d"), /the node network of shoot--p--a/);
  assert.equal(await networks.allocatePublic("a"), "198.18.0.3", "a key keeps its address when the pool is full");
});

test("a bastion's public and node addresses come in one update: both, or neither when one network is full", async () => {
  const host = new FakeHost();
  const networks = new LocalNetworks({ host, addresses: new MemoryAddressBook(), maxPorts: 3 });
  await networks.ensureNodeNetwork("shoot--p--a", "10.250.0.0/16");
  assert.deepEqual(await networks.allocatePublicAndNode("shoot--p--a", "bastion/x/b1", "bastion/b1"), { publicAddress: "198.18.0.3", nodeAddress: "10.250.0.2" });
  assert.deepEqual(await networks.allocatePublicAndNode("shoot--p--a", "bastion/x/b1", "bastion/b1"), { publicAddress: "198.18.0.3", nodeAddress: "10.250.0.2" }, "the same again for the same keys");
  for (const k of ["w1", "w2"]) await networks.allocateNode("shoot--p--a", k);
  await assert.rejects(networks.allocatePublicAndNode("shoot--p--a", "bastion/x/b2", "bastion/b2"), /the node network of shoot--p--a/);
  assert.equal((await networks.addresses.read())["public"]?.["bastion/x/b2"], undefined, "no public address held for a bastion without a node address");
});

test("the control plane's kubelet access is recorded with the node network: another process's ensure keeps it; deletion forgets it", async () => {
  const { host, networks } = setup();
  const natText = async (netns: string): Promise<string> => renderTable(host.state.tables.get(`${netns}/ip/${(await host.listTables(netns))[0]!.name}`)!);
  const net = await networks.ensureNodeNetwork("shoot--p--a", "10.250.0.0/16");
  assert.doesNotMatch(await natText(net.netns), /10250/);
  await networks.allowControlPlane("shoot--p--a", "198.18.0.2");
  await networks.ensureNodeNetwork("shoot--p--a");
  const accept = /iifname "public0" ip saddr 198\.18\.0\.2 ip daddr 10\.250\.0\.0\/16 tcp dport 10250 ct state new accept/;
  assert.match(await natText(net.netns), accept);
  assert.equal(await networks.routerAddress("shoot--p--a"), (await networks.addresses.read())["public"]?.["router/shoot--p--a"]);
  // A second process (provider-local) on the same address book rebuilds the router with the exception.
  await host.deleteNetns(net.netns);
  const other = new LocalNetworks({ host, addresses: networks.addresses });
  await other.ensureNodeNetwork("shoot--p--a");
  assert.match(await natText(net.netns), accept);
  await assert.rejects(networks.allowControlPlane("shoot--p--a", "not-an-address"));
  await networks.deleteNodeNetwork("shoot--p--a");
  assert.equal((await networks.addresses.read())["control-plane-sources"], undefined);
});

test("a node's pod range is routed to it in the router and closed to the public side; rebuilds keep the route; unrouting and deletion forget it", async () => {
  const { host, networks } = setup();
  const ns = "shoot--p--a";
  const net = await networks.ensureNodeNetwork(ns, "10.250.0.0/16");
  const natText = async (): Promise<string> => renderTable(host.state.tables.get(`${net.netns}/ip/${(await host.listTables(net.netns))[0]!.name}`)!);
  const routes = (): string[] => [...host.state.routes.values()].filter((r) => r.netns === net.netns).map((r) => `${r.destination} via ${r.via} dev ${r.dev}`).sort();
  await assert.rejects(networks.routePods(ns, "worker/w1", "100.96.0.0/24"), /worker\/w1 has no address in the node network/);
  const w1 = await networks.allocateNode(ns, "worker/w1");
  const w2 = await networks.allocateNode(ns, "worker/w2");
  await networks.routePods(ns, "worker/w1", "100.96.0.7/24");
  await networks.routePods(ns, "worker/w2", "100.96.1.0/24");
  assert.deepEqual(routes(), [`100.96.0.0/24 via ${w1} dev br-nodes`, `100.96.1.0/24 via ${w2} dev br-nodes`]);
  assert.match(await natText(), /iifname "public0" ip daddr \{ 10\.250\.0\.0\/16, 100\.96\.0\.0\/24, 100\.96\.1\.0\/24 \} drop/);
  assert.match(await natText(), /oifname "public0" ip saddr 10\.250\.0\.0\/16 masquerade/, "pod ranges are not masqueraded by the router (the nodes do)");
  // Another process (provider-local) on the same book rebuilds the router with both routes.
  await host.deleteNetns(net.netns);
  await new LocalNetworks({ host, addresses: networks.addresses }).ensureNodeNetwork(ns);
  assert.equal(routes().length, 2);
  await networks.unroutePods(ns, "worker/w1");
  await networks.unroutePods(ns, "worker/w1");
  assert.deepEqual(routes(), [`100.96.1.0/24 via ${w2} dev br-nodes`]);
  await networks.ensureNodeNetwork(ns);
  assert.match(await natText(), /ip daddr \{ 10\.250\.0\.0\/16, 100\.96\.1\.0\/24 \} drop/);
  await networks.deleteNodeNetwork(ns);
  assert.equal((await networks.addresses.read())[`pod-routes/${ns}`], undefined);
  await assert.rejects(networks.routePods(ns, "worker/w2", "fd00::/64"));
});
