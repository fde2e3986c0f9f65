// Attacks on the host from inside a machine, as user gardener with passwordless sudo (what GEP-15's
// user-data gives every bastion and node user): root inside a machine must be root of that machine only
// (docs/machines.md). Each attack runs through `su gardener -c 'sudo -n sh -c ...'`, so sudo itself works.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MachineInfo } from "../../../src/host/index.ts";
import { NC, cleanUpAndAssertNoLeaks, listen, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

const userData = `#!/bin/bash -eu
useradd -m -U -s /bin/bash gardener
echo 'gardener ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/99-gardener-user
chmod 0440 /etc/sudoers.d/99-gardener-user
echo "machine secret" > /root/secret
chmod 600 /root/secret
systemctl start sshd
`;

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe("host e2e: a machine's root is not the host's", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let a: MachineInfo;
  let b: MachineInfo;
  let outside: string;
  const hostTable = () => t!.host.names.table("marker");
  const clientAddr = "192.168.247.9";
  const routedToB = "10.77.0.0/24";

  /** Runs a shell script as gardener through sudo in machine `m`; never throws on a non-zero exit. */
  const sudo = async (m: MachineInfo, script: string) => {
    const r = await t!.host.execInMachine(m.name, "su", ["gardener", "-c", `sudo -n sh -c ${shq(script)}`], { okExitCodes: Array.from({ length: 256 }, (_, i) => i) });
    return { code: r.exitCode, out: r.stdout.trim(), err: r.stderr.trim() };
  };
  const refused = async (m: MachineInfo, script: string) => {
    const r = await sudo(m, script);
    assert.notEqual(r.code, 0, `${script} succeeded inside ${m.name}: ${r.out}`);
    return r;
  };

  before(async () => {
    t = await newTestHost();
    const { host, stateDir } = t;
    await writeFile(join(stateDir, "admin.kubeconfig"), "landscape secret\n", { mode: 0o644 });
    outside = await mkdtemp(join(tmpdir(), "ga-e2e-outside-"));
    await chmod(outside, 0o755);
    await writeFile(join(outside, "code.js"), "// readable code\n", { mode: 0o644 });
    await writeFile(join(outside, "private.key"), "host root only\n", { mode: 0o600 });
    await host.applyTable(undefined, { family: "inet", name: hostTable(), chains: [] });
    const ns = host.names.netns("pub");
    const br = host.names.link("pub");
    await host.ensureNetns(ns);
    await host.ensureBridge({ name: br, netns: ns, addresses: ["192.168.247.1/24"] });
    const client = host.names.netns("client");
    await host.ensureNetns(client);
    t.tracker.netns(client);
    await host.ensureVeth({ name: "eth0", netns: client, addresses: [`${clientAddr}/24`], peer: { name: host.names.link("client"), netns: ns, master: br } });
    await listen(host, client, "listener", clientAddr, 8080);
    [a, b] = await Promise.all(
      ["a", "b"].map((name, i) =>
        // b routes a range (as a node routes its pods'): it may send from it, a may not.
        host.startMachine({ name, networks: [{ bridge: br, bridgeNetns: ns, address: `192.168.247.${10 + i}/24`, ...(name === "b" ? { routed: [routedToB] } : {}) }], userData, readOnlyBinds: [outside], sshd: { hostKeyTypes: ["ed25519"] }, readyTimeoutMs: 30_000 }),
      ),
    ) as [MachineInfo, MachineInfo];
    for (const m of [a, b]) {
      t.tracker.netns(m.netns);
      t.tracker.pidnsOf(m.init!.pid);
    }
  });

  after(async () => {
    await cleanUpAndAssertNoLeaks(t);
    if (outside) await rm(outside, { recursive: true, force: true });
  });

  test("sudo makes gardener root of the machine, which the host sees as an unprivileged id", async () => {
    const r = await sudo(a, "id -u; cat /proc/self/uid_map");
    assert.equal(r.code, 0, r.err);
    const [uid, map] = r.out.split("\n");
    assert.equal(uid, "0");
    const [inside, base, count] = map!.trim().split(/\s+/).map(Number);
    assert.deepEqual([inside, count], [0, 65536]);
    assert.ok(base! >= 65536, `root inside maps to host id ${base}`);
    const status = await readFile(`/proc/${a.init!.pid}/status`, "utf8");
    assert.match(status, new RegExp(`^Uid:\\s+${base}\\s`, "m"), "the machine's PID 1 runs as the range's first id on the host");
    assert.equal((await stat(join(a.upperDir, "root", "secret"))).uid, base, "files the machine writes belong to its ids");
  });

  test("root still does what root on a VM does: users, sshd, its own firewall and mounts", async () => {
    const r = await sudo(a, "useradd -m extra && id -u extra && nft add table inet mine && nft list tables && mount -t tmpfs tmpfs /mnt && ip addr add 10.99.0.1/32 dev lo && ip netns add inner && ip netns exec inner ip link set lo up && ip -n inner -o link show lo && echo ok");
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /table inet mine/);
    assert.match(r.out, /ok$/);
    assert.equal(a.ready, true, "its own sshd listens");
  });

  test("the landscape's state directory, other machines and host files are out of reach", async () => {
    const { stateDir } = t!;
    for (const path of [stateDir, join(stateDir, "admin.kubeconfig"), join(b.upperDir, "root", "secret"), join(b.rootDir, "root", "secret"), "/work", `/proc/1/root${stateDir}`]) {
      await refused(a, `ls ${shq(path)} || cat ${shq(path)}`);
    }
    await refused(a, `mount --bind / /mnt && ls ${shq(join("/mnt", stateDir))}`);
    const found = await sudo(a, "find / -name admin.kubeconfig -not -path '/proc/*' 2>/dev/null");
    assert.equal(found.out, "", "no file of the state directory anywhere in the machine");
    const hostAccounts = (await readFile("/etc/shadow", "utf8")).split("\n").map((l) => l.split(":")[0]).filter(Boolean);
    const shadow = await sudo(a, "cat /etc/shadow");
    for (const line of shadow.out.split("\n")) {
      const [user, password] = line.split(":");
      if (hostAccounts.includes(user!)) assert.equal(password, "*", `no password hash of the host reaches a machine (${user})`);
    }
    const binds = await sudo(a, `cat ${shq(join(outside, "code.js"))}`);
    assert.equal(binds.out, "// readable code", "what is bound for the machine is readable");
    await refused(a, `cat ${shq(join(outside, "private.key"))}`);
    await refused(a, `touch ${shq(join(outside, "new"))}`);
    await refused(a, `mount -o remount,bind,rw ${shq(outside)}`);
  });

  test("the host's devices, system directories, clock and kernel settings cannot be changed", async () => {
    const disk = await stat("/dev/vda").catch(() => undefined);
    const [major, minor] = disk ? [Math.floor(disk.rdev / 256), disk.rdev % 256] : [8, 0];
    await refused(a, `mknod /tmp/disk b ${major} ${minor}`);
    const dev = await sudo(a, "ls /dev");
    assert.deepEqual(dev.out.split(/\s+/).sort(), ["fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout", "tty", "urandom", "zero"]);
    await refused(a, "touch /usr/bin/evil");
    await refused(a, "mount -o remount,rw /usr");
    await refused(a, "mount --bind /usr /mnt && mount -o remount,bind,rw /mnt && touch /mnt/evil");
    const before = Date.now();
    await refused(a, "date -s @1");
    assert.ok(Date.now() >= before, "the host's clock is unchanged");
    // Global settings, written with their current values: refused, and harmless if they were not.
    for (const setting of ["kernel/hung_task_warnings", "vm/dirty_expire_centisecs"]) {
      const value = (await readFile(`/proc/sys/${setting}`, "utf8")).trim();
      await refused(a, `echo ${value} > /proc/sys/${setting}`);
    }
    await refused(a, "echo 1 > /sys/kernel/mm/ksm/run");
    // This kernel may have no module support at all; on one that has it, the capability is the host's.
    await refused(a, "modprobe dummy");
  });

  test("the host's network, firewall, processes and namespaces are invisible or refused", async () => {
    const links = await sudo(a, "ip -o link show | cut -d: -f2 | cut -d@ -f1");
    assert.deepEqual(links.out.split(/\s+/).sort(), ["eth0", "lo"]);
    const tables = await sudo(a, "nft list tables");
    assert.doesNotMatch(tables.out, new RegExp(hostTable()));
    await refused(a, `nft delete table inet ${hostTable()}`);
    assert.ok((await t!.host.listTables()).some((x) => x.name === hostTable()), "the host's table is still there");
    const netns = await sudo(a, "ls /run/netns 2>/dev/null");
    assert.ok(!netns.out.split(/\s+/).some((n) => n.startsWith(t!.prefix)), `the host's namespaces are not listed: ${netns.out}`);
    const procs = await sudo(a, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done");
    assert.doesNotMatch(procs.out, /node|nsutil|unshare/, "no host process is visible");
    await refused(a, `kill -0 ${process.pid}`);
    // PID 1 is the machine's own init: entering "its" namespaces leads back into the machine.
    const entered = await sudo(a, "nsenter -t 1 -a -- ls /");
    assert.doesNotMatch(entered.out, /gardener-local/);
    await refused(a, `nsenter -t 1 -a -- ls ${shq(t!.stateDir)}`);
  });

  test("root inside cannot pose as another machine on the bridge: foreign addresses, MACs and ARP claims are dropped", async () => {
    const host = t!.host;
    const reach = async (source?: string) => {
      const r = await host.execInMachine(a.name, NC, [...(source ? ["-s", source] : []), "-z", "-w", "1", clientAddr, "8080"], { okExitCodes: [0, 1] });
      return r.exitCode === 0;
    };
    assert.equal(await reach(), true, "its own address reaches the client");
    const bAddr = b.interfaces[0]!.address.split("/")[0]!;
    await host.execInMachine(a.name, "ip", ["addr", "add", `${bAddr}/32`, "dev", "eth0"]);
    assert.equal(await reach(bAddr), false, "a packet from machine b's address is dropped");
    await host.execInMachine(a.name, "arping", ["-q", "-U", "-c", "2", "-I", "eth0", "-s", bAddr, bAddr], { okExitCodes: [0, 1] });
    const neigh = await host.execInNetns(host.names.netns("client"), "ip", ["neigh", "show", bAddr]);
    const aMac = (await host.execInMachine(a.name, "cat", ["/sys/class/net/eth0/address"])).stdout.trim();
    assert.ok(!neigh.stdout.includes(aMac), `the client did not learn machine a's MAC for ${bAddr}: ${neigh.stdout}`);
    await host.execInMachine(a.name, "ip", ["addr", "del", `${bAddr}/32`, "dev", "eth0"]);
    await host.execInMachine(a.name, "ip", ["link", "set", "eth0", "address", "02:11:22:33:44:55"]);
    assert.equal(await reach(), false, "frames from another MAC are dropped");
    await host.execInMachine(a.name, "ip", ["link", "set", "eth0", "address", aMac]);
    assert.equal(await reach(), true, "and its own MAC works again");
  });

  test("a machine sends from a range routed to it (a node's pods), and no machine from one that is not", async () => {
    const host = t!.host;
    const client = host.names.netns("client");
    // The client routes both ranges to their machines, so an answer would find its way back if the packet got out.
    await host.execInNetns(client, "ip", ["route", "replace", routedToB, "via", "192.168.247.11"]);
    await host.execInNetns(client, "ip", ["route", "replace", "10.78.0.0/24", "via", "192.168.247.10"]);
    const reach = async (m: MachineInfo, source: string) => {
      await host.execInMachine(m.name, "ip", ["addr", "replace", `${source}/32`, "dev", "lo"]);
      const r = await host.execInMachine(m.name, NC, ["-s", source, "-z", "-w", "1", clientAddr, "8080"], { okExitCodes: [0, 1] });
      await host.execInMachine(m.name, "ip", ["addr", "del", `${source}/32`, "dev", "lo"]);
      return r.exitCode === 0;
    };
    // ARP names only the machine's own address (the guard drops other claims): as for a node forwarding its pods' packets.
    for (const m of [a, b]) await host.execInMachine(m.name, "sysctl", ["-qw", "net.ipv4.conf.all.arp_announce=2"]);
    assert.equal(await reach(b, "10.77.0.5"), true, "b sends from its routed range");
    assert.equal(await reach(a, "10.78.0.5"), false, "a has no routed range: a packet from 10.78.0.5 is dropped");
    const guard = (await host.execInNetns(host.names.netns("pub"), "nft", ["list", "set", "bridge", host.names.table("guard", host.names.link("pub")), "routed4"])).stdout;
    assert.match(guard, /10\.77\.0\.0\/24/);
  });
});
