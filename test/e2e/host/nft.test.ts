// A real nftables table inside a namespace: TCP 22 only from an interval set, checked with real
// connections from two client namespaces; replacing the set's contents in place cuts a source.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NftTable } from "../../../src/host/index.ts";
import { canConnect, cleanUpAndAssertNoLeaks, listen, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

const firewall: NftTable = {
  family: "inet",
  name: "bastion",
  sets: [
    { name: "ingress4", type: "ipv4_addr", elements: ["192.168.250.11/32"] },
    { name: "ingress6", type: "ipv6_addr", elements: [] },
  ],
  chains: [
    {
      name: "input",
      base: { type: "filter", hook: "input", priority: "filter", policy: "drop" },
      rules: [
        { iif: "lo", verdict: "accept" },
        { iif: "eth0", protocol: "tcp", dport: 22, saddr: { set: "ingress4" }, verdict: "accept" },
        { iif: "eth0", protocol: "tcp", dport: 22, saddr: { set: "ingress6" }, verdict: "accept" },
        { protocol: "tcp", dport: 22, verdict: "drop" },
        { ct: ["established", "related"], verdict: "accept" },
        { protocol: "tcp", dport: 8080, verdict: "accept" },
      ],
    },
  ],
};

describe("host e2e: nftables", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let ns: (n: string) => string;
  const ref = { family: "inet" as const, name: "bastion" };

  before(async () => {
    t = await newTestHost();
    const { host } = t;
    ns = (n) => host.names.netns(n);
    const br = host.names.link("pub");
    await host.ensureNetns(ns("pub"));
    await host.ensureBridge({ name: br, netns: ns("pub") });
    for (const [name, addr] of [["srv", "192.168.250.2/24"], ["c1", "192.168.250.11/24"], ["c2", "192.168.250.12/24"]] as const) {
      await host.ensureNetns(ns(name));
      t.tracker.netns(ns(name));
      await host.ensureVeth({ name: "eth0", netns: ns(name), addresses: [addr], peer: { name: host.names.link(name, "0"), netns: ns("pub"), master: br } });
    }
    await listen(host, ns("srv"), "ssh-port", "192.168.250.2", 22);
    await listen(host, ns("srv"), "other-port", "192.168.250.2", 8080);
  });

  after(() => cleanUpAndAssertNoLeaks(t));

  test("without a table both clients connect", async () => {
    const { host } = t!;
    assert.ok(await canConnect(host, ns("c1"), "192.168.250.2", 22));
    assert.ok(await canConnect(host, ns("c2"), "192.168.250.2", 22));
  });

  test("the table admits TCP 22 only from the set", async () => {
    const { host } = t!;
    await host.applyTable(ns("srv"), firewall, { owner: "test" });
    assert.deepEqual(await host.listTables(ns("srv")), [ref]);
    assert.deepEqual(await host.getSetElements(ns("srv"), ref, "ingress4"), ["192.168.250.11"]);
    assert.ok(await canConnect(host, ns("c1"), "192.168.250.2", 22));
    assert.ok(!(await canConnect(host, ns("c2"), "192.168.250.2", 22)));
    assert.ok(await canConnect(host, ns("c2"), "192.168.250.2", 8080), "other ports are not affected");
  });

  test("replacing the set in place cuts the old source and admits the new one", async () => {
    const { host } = t!;
    await host.replaceSetElements(ns("srv"), ref, [
      { name: "ingress4", type: "ipv4_addr", elements: ["192.168.250.12", "10.0.0.0/8", "10.1.0.0/16"] },
      { name: "ingress6", type: "ipv6_addr", elements: ["fd00::/8"] },
    ]);
    assert.deepEqual(await host.getSetElements(ns("srv"), ref, "ingress4"), ["10.0.0.0/8", "192.168.250.12"]);
    assert.deepEqual(await host.getSetElements(ns("srv"), ref, "ingress6"), ["fd00::/8"]);
    assert.ok(!(await canConnect(host, ns("c1"), "192.168.250.2", 22)), "c1 is cut");
    assert.ok(await canConnect(host, ns("c2"), "192.168.250.2", 22));
  });

  test("re-applying the whole table replaces it atomically; deleting it opens the port again", async () => {
    const { host } = t!;
    await host.applyTable(ns("srv"), firewall);
    assert.deepEqual(await host.getSetElements(ns("srv"), ref, "ingress4"), ["192.168.250.11"]);
    assert.ok(await canConnect(host, ns("c1"), "192.168.250.2", 22));
    await host.deleteTable(ns("srv"), ref);
    await host.deleteTable(ns("srv"), ref);
    assert.deepEqual(await host.listTables(ns("srv")), []);
    assert.ok(await canConnect(host, ns("c2"), "192.168.250.2", 22));
  });

  test("a prefixed table in the host namespace is recorded and removed by removeAll", async () => {
    const { host } = t!;
    const name = host.names.table("probe");
    await host.applyTable(undefined, { family: "inet", name, chains: [] });
    assert.deepEqual((await host.inventory()).tables, [`inet ${name}`]);
  });
});
