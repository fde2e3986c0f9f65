// Real namespaces, a bridge and veths: ping and TCP between two namespaces; one-way NAT from a node network
// to the public network through a router namespace. Traffic stays inside the test's own namespaces.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { canConnect, canPing, cleanUpAndAssertNoLeaks, listen, newTestHost, readLog, skipUnlessRoot, waitForLog, type TestHost } from "./support.ts";

describe("host e2e: namespaces, bridge, veths, NAT", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let ns: (n: string) => string;
  let br: string;

  before(async () => {
    t = await newTestHost();
    ns = (n) => t!.host.names.netns(n);
    br = t.host.names.link("pub");
    const { host } = t;
    await host.ensureNetns(ns("pub"), { owner: "test" });
    t.tracker.netns(ns("pub"));
    await host.ensureBridge({ name: br, netns: ns("pub"), owner: "test" });
    for (const [name, addr] of [["a", "192.168.250.2/24"], ["b", "192.168.250.3/24"]] as const) {
      await host.ensureNetns(ns(name));
      t.tracker.netns(ns(name));
      await host.ensureVeth({ name: "eth0", netns: ns(name), addresses: [addr], peer: { name: host.names.link(name, "0"), netns: ns("pub"), master: br } });
    }
  });

  after(() => cleanUpAndAssertNoLeaks(t));

  test("two namespaces on one bridge reach each other by ping and TCP", async () => {
    const { host } = t!;
    assert.ok(await canPing(host, ns("a"), "192.168.250.3"));
    const server = await listen(host, ns("b"), "srv-b", "192.168.250.3", 8080);
    assert.ok(await canConnect(host, ns("a"), "192.168.250.3", 8080));
    assert.match(await waitForLog(server.log, /Connection received/), /Connection received on 192\.168\.250\.2 /);
    assert.ok(!(await canConnect(host, ns("a"), "192.168.250.3", 8081)), "nothing listens there");
  });

  test("ensure* calls are idempotent against the real host", async () => {
    const { host } = t!;
    await host.ensureBridge({ name: br, netns: ns("pub"), owner: "test" });
    await host.ensureVeth({ name: "eth0", netns: ns("a"), addresses: ["192.168.250.2/24"], peer: { name: host.names.link("a", "0"), netns: ns("pub"), master: br } });
    const addrs = await host.execInNetns(ns("a"), "ip", ["-o", "-4", "addr", "show", "dev", "eth0"]);
    assert.equal(addrs.stdout.trim().split("\n").length, 1, addrs.stdout);
    assert.ok(await canPing(host, ns("a"), "192.168.250.3"));
  });

  test("NAT: nodes reach the public network masqueraded; the public network cannot open connections to nodes", async () => {
    const { host } = t!;
    const router = ns("router");
    await host.ensureNetns(router);
    t!.tracker.netns(router);
    await host.ensureVeth({ name: "up", netns: router, addresses: ["192.168.250.4/24"], peer: { name: host.names.link("router", "0"), netns: ns("pub"), master: br } });
    await host.ensureBridge({ name: "nodes", netns: router, addresses: ["10.250.0.1/16"] });
    await host.ensureNetns(ns("node"));
    t!.tracker.netns(ns("node"));
    await host.ensureVeth({ name: "eth0", netns: ns("node"), addresses: ["10.250.0.5/16"], peer: { name: host.names.link("node", "0"), netns: router, master: "nodes" } });
    await host.ensureRoute({ netns: ns("node"), destination: "default", via: "10.250.0.1", dev: "eth0" });
    // The public side knows the way to the node network, so only the firewall can stop it.
    await host.ensureRoute({ netns: ns("b"), destination: "10.250.0.0/16", via: "192.168.250.4", dev: "eth0" });
    const node = await listen(host, ns("node"), "srv-node", "10.250.0.5", 2222);
    const pub = await listen(host, ns("b"), "srv-b-nat", "192.168.250.3", 9090);

    assert.ok(!(await canConnect(host, ns("node"), "192.168.250.3", 9090)), "no forwarding before NAT is set up");
    await host.ensureNat({ name: "shoot1", netns: router, sourceCidr: "10.250.0.0/16", outInterface: "up" });
    assert.ok(await canConnect(host, ns("node"), "192.168.250.3", 9090));
    assert.match(await waitForLog(pub.log, /Connection received/), /Connection received on 192\.168\.250\.4 /, "the node appears as the router's public address");
    assert.ok(!(await canConnect(host, ns("b"), "10.250.0.5", 2222)), "no way in from the public network");
    assert.doesNotMatch(await readLog(node.log), /Connection received/);

    await host.deleteNat({ name: "shoot1", netns: router, sourceCidr: "10.250.0.0/16" });
    // Only the node bridge's anti-spoofing table stays (it lives with the bridge).
    assert.deepEqual(await host.listTables(router), [{ family: "bridge", name: host.names.table("guard", "nodes") }]);
    await host.deleteRoute({ netns: ns("b"), destination: "10.250.0.0/16", via: "192.168.250.4", dev: "eth0" });
  });
});
