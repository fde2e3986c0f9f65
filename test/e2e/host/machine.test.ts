// A real machine: boots over an overlay of the host root, runs user-data that creates user gardener with an
// authorized key and starts sshd through the systemctl stand-in; a real ssh from another namespace prints
// the machine's hostname, checked against the host keys the machine reports. The host's /etc stays as it
// was; a restarted host object finds the machine again; kill -9 of the supervisor leaves no process behind.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LinuxHost, MachineBootError, type MachineInfo } from "../../../src/host/index.ts";
import { isAlive, waitGone } from "../../../src/host/procs.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

/** user-data as the gardenlet writes it (docs/bastion.md#userdata): the key only as base64. */
function userData(publicKey: string): string {
  const b64 = Buffer.from(publicKey.trim()).toString("base64");
  return `#!/bin/bash -eu
id gardener >/dev/null 2>&1 || useradd -m -d /home/gardener -U -s /bin/bash gardener
install -d -o gardener -g gardener -m 0700 /home/gardener/.ssh
echo '${b64}' | base64 -d > /home/gardener/.ssh/authorized_keys
echo >> /home/gardener/.ssh/authorized_keys
chown gardener:gardener /home/gardener/.ssh/authorized_keys
chmod 0600 /home/gardener/.ssh/authorized_keys
echo 'gardener ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/99-gardener-user
chmod 0440 /etc/sudoers.d/99-gardener-user
systemctl start sshd || systemctl start ssh
`;
}

const sha = async (path: string) => createHash("sha256").update(await readFile(path)).digest("hex");

describe("host e2e: machines", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let ns: (n: string) => string;
  let key: string;
  let info: MachineInfo;
  let passwdBefore: string;
  const addr = "192.168.250.10";

  const ssh = (knownHosts: string, ...command: string[]) =>
    t!.host.execInNetns(
      ns("client"),
      "ssh",
      ["-i", key, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", `UserKnownHostsFile=${knownHosts}`, "-o", "ConnectTimeout=5", `gardener@${addr}`, ...command],
      { okExitCodes: [0, 255] },
    );

  before(async () => {
    t = await newTestHost();
    const { host, stateDir } = t;
    ns = (n) => host.names.netns(n);
    passwdBefore = await sha("/etc/passwd");
    const br = host.names.link("pub");
    await host.ensureNetns(ns("pub"));
    await host.ensureBridge({ name: br, netns: ns("pub") });
    await host.ensureNetns(ns("client"));
    t.tracker.netns(ns("client"));
    await host.ensureVeth({ name: "eth0", netns: ns("client"), addresses: ["192.168.250.9/24"], peer: { name: host.names.link("client", "0"), netns: ns("pub"), master: br } });
    key = join(stateDir, "id_ed25519");
    await host.ctx.exec.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "operator", "-f", key]);
    info = await host.startMachine({
      name: "bastion-one",
      hostname: "bastion-one.local",
      owner: "test",
      networks: [{ bridge: br, bridgeNetns: ns("pub"), address: `${addr}/24` }],
      userData: userData(await readFile(`${key}.pub`, "utf8")),
      sshd: { hostKeyTypes: ["ed25519", "ecdsa"], options: { AllowUsers: "gardener", AllowTcpForwarding: true } },
      readyTimeoutMs: 30_000,
    });
    t.tracker.netns(info.netns);
    t.tracker.pidnsOf(info.init!.pid);
  });

  after(() => cleanUpAndAssertNoLeaks(t));

  test("the machine is ready: user-data ran, sshd listens, its own host keys are reported", async () => {
    assert.equal(info.ready, true);
    assert.equal(info.userDataExitCode, 0);
    assert.deepEqual(info.sshd, { port: 22, listenAddresses: [addr] });
    assert.deepEqual(info.hostKeys.map((k) => k.split(" ")[0]), ["ecdsa-sha2-nistp256", "ssh-ed25519"]);
    for (const k of info.hostKeys) {
      for (const f of ["ssh_host_ed25519_key.pub", "ssh_host_ecdsa_key.pub"]) {
        if (existsSync(`/etc/ssh/${f}`)) assert.ok(!(await readFile(`/etc/ssh/${f}`, "utf8")).includes(k.split(" ")[1]!), "never the host's keys");
      }
    }
  });

  test("a real ssh from another namespace, verifying the reported host keys, prints the machine's hostname", async () => {
    const known = join(t!.stateDir, "known_hosts");
    await writeFile(known, info.hostKeys.map((k) => `${addr} ${k}\n`).join(""));
    const r = await ssh(known, "hostname");
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), "bastion-one.local");
    const who = await ssh(known, "id", "-un");
    assert.equal(who.stdout.trim(), "gardener");
    const scanned = await t!.host.execInNetns(ns("client"), "ssh-keyscan", ["-T", "5", addr]);
    const served = scanned.stdout.split("\n").filter((l) => l.startsWith(addr)).map((l) => l.split(" ").slice(1, 3).join(" ")).sort();
    assert.deepEqual(served, info.hostKeys, "sshd serves exactly the reported keys");
    await writeFile(known, `${addr} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKf8wz1bn5a3y1uY9Xv6dVf0rJdJcDJ1pLTtfu1bTR2k\n`);
    assert.equal((await ssh(known, "hostname")).exitCode, 255, "a wrong host key is refused");
  });

  test("users live in the machine's upper layer; the host's /etc is unchanged", async () => {
    assert.equal(await sha("/etc/passwd"), passwdBefore);
    assert.ok(!(await readFile("/etc/passwd", "utf8")).includes("\ngardener:"));
    assert.ok(!existsSync("/etc/sudoers.d/99-gardener-user"));
    assert.match(await readFile(join(info.upperDir, "etc/passwd"), "utf8"), /^gardener:x:/m);
    assert.ok(existsSync(join(info.upperDir, "etc/sudoers.d/99-gardener-user")));
    const r = await t!.host.execInMachine("bastion-one", "getent", ["passwd", "gardener"]);
    assert.match(r.stdout, /^gardener:x:\d+:\d+::\/home\/gardener:\/bin\/bash$/m);
  });

  test("inside, the machine has its own PID namespace, hostname and a systemctl that knows its sshd", async () => {
    const { host } = t!;
    const ps = await host.execInMachine("bastion-one", "ps", ["-eo", "pid=,comm="]);
    const procs = ps.stdout.trim().split("\n").map((l) => l.trim());
    assert.ok(procs.some((l) => /^1 init$/.test(l) || /^1 bash$/.test(l)), ps.stdout);
    assert.ok(procs.some((l) => l.endsWith("sshd")), ps.stdout);
    // A process that just ended is a zombie until PID 1 reaps it: wait for that, briefly.
    let zombies: string[] = [];
    for (let i = 0; i < 40; i++) {
      zombies = (await host.execInMachine("bastion-one", "ps", ["-eo", "stat=,pid,comm"])).stdout.split("\n").filter((l) => l.startsWith("Z"));
      if (zombies.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(zombies, [], "PID 1 reaps finished ssh sessions");
    assert.equal((await host.execInMachine("bastion-one", "hostname", [])).stdout.trim(), "bastion-one.local");
    // Its links announce their addresses when they come up: stage 1 turned arp_notify on in its own namespace.
    assert.equal((await host.execInMachine("bastion-one", "cat", ["/proc/sys/net/ipv4/conf/all/arp_notify"])).stdout.trim(), "1");
    // Its boot log has millisecond timestamps (bench/bastion-local --trace reads them).
    assert.match(await readFile(join(t!.stateDir, "machines", "bastion-one", "console.log"), "utf8"), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z init: booting bastion-one\.local$/m);
    assert.equal((await host.execInMachine("bastion-one", "systemctl", ["is-active", "sshd"])).stdout.trim(), "active");
    const none = await host.execInMachine("bastion-one", "systemctl", ["start", "nginx"], { okExitCodes: [5] });
    assert.match(none.stderr, /not found/);
  });

  test("a restarted host object finds the running machine and does not rebuild it", async () => {
    const again = new LinuxHost({ stateDir: t!.stateDir });
    assert.equal(again.names.prefix, t!.prefix, "the state directory remembers its prefix");
    const status = await again.machineStatus("bastion-one");
    assert.equal(status?.running, true);
    assert.equal(status?.ready, true);
    const started = await again.startMachine({ name: "bastion-one", networks: [] });
    assert.deepEqual(started.supervisor, info.supervisor);
  });

  test("a failing user-data is reported as a boot error with its output", async () => {
    const { host } = t!;
    const err = await host
      .startMachine({ name: "broken", networks: [], userData: "#!/bin/sh\necho 'cannot do it' >&2\nexit 3\n", sshd: { hostKeyTypes: ["ed25519"], listenAddresses: ["127.0.0.1"] }, readyTimeoutMs: 30_000 })
      .catch((e: unknown) => e);
    assert.ok(err instanceof MachineBootError, String(err));
    assert.match(err.message, /user-data exited with 3:\ncannot do it/);
    t!.tracker.netns(host.names.machineNetns("broken"));
    await host.stopMachine("broken");
    assert.equal(await host.machineStatus("broken"), undefined);
  });

  // A pool machine (docs/adr/0015-bastion-machine-pool.md): held before its use, claimed with what is particular to it.
  const niceOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
  const holdSpec = (name: string) => ({
    name, owner: "pool", networks: [], hold: true, prepare: "#!/bin/sh\nuseradd -m -d /home/gardener -U -s /bin/bash gardener\n",
    sshd: { hostKeyTypes: ["ed25519", "ecdsa"] as const }, readyTimeoutMs: 30_000,
  });

  test("a held machine, claimed, boots on with the claim's name, network, user-data and sshd; its processes get normal priority", async () => {
    const { host } = t!;
    const held = await host.startMachine(holdSpec("pool-a"));
    t!.tracker.netns(held.netns);
    assert.equal(held.held, true);
    assert.equal(held.ready, false);
    assert.equal(niceOf(held.init!.pid), 10, "a held machine waits at a low priority");
    const upper = await readFile(join(held.upperDir, "etc/passwd"), "utf8");
    assert.match(upper, /^gardener:x:/m, "prepare ran before the machine was held");
    const pooledAddr = "192.168.250.11";
    const claimed = await host.claimMachine("pool-a", {
      name: "pooled-one", hostname: "pooled-one.local", owner: "test",
      networks: [{ bridge: host.names.link("pub"), bridgeNetns: ns("pub"), address: `${pooledAddr}/24` }],
      userData: userData(await readFile(`${key}.pub`, "utf8")),
      sshd: { hostKeyTypes: ["ed25519", "ecdsa"], listenAddresses: [pooledAddr], options: { AllowUsers: "gardener" } }, readyTimeoutMs: 30_000,
    });
    assert.equal(claimed.ready, true);
    assert.equal(claimed.held, undefined);
    assert.deepEqual(claimed.supervisor, held.supervisor, "the same machine");
    assert.equal(claimed.dir, held.dir, "its directory keeps the held machine's name");
    assert.equal(niceOf(claimed.init!.pid), 0);
    assert.equal(await host.machineStatus("pool-a"), undefined, "the held machine's record is gone");
    const parts = await host.listRecords((id) => id.includes("pool-a"));
    assert.ok(parts.length >= 3 && parts.every((p) => p.parent === "machine/pooled-one"), `its parts belong to the claimer: ${JSON.stringify(parts.map((p) => p.parent))}`);
    const known = join(t!.stateDir, "known_hosts_pooled");
    await writeFile(known, claimed.hostKeys.map((k) => `${pooledAddr} ${k}\n`).join(""));
    const r = await t!.host.execInNetns(ns("client"), "ssh", ["-i", key, "-o", "BatchMode=yes", "-o", `UserKnownHostsFile=${known}`, "-o", "ConnectTimeout=5", `gardener@${pooledAddr}`, "hostname"]);
    assert.equal(r.stdout.trim(), "pooled-one.local");
    await host.stopMachine("pooled-one");
    assert.ok(!(await host.netnsExists(held.netns)));
    assert.ok(!existsSync(held.dir));
    assert.deepEqual(await host.listRecords((id) => id.includes("pool-a") || id.includes("pooled-one")), []);
  });

  test("a claim interrupted after the claimer's record hands the held machine over; the claimer's leftover is stopped as a whole", async () => {
    const { host } = t!;
    const held = await host.startMachine(holdSpec("pool-b"));
    t!.tracker.netns(held.netns);
    t!.tracker.pidnsOf(held.init!.pid);
    // What a claimer that died after its record leaves: the marker and a record in state creating.
    const rec = await host.ctx.records.get("machine/pool-b");
    assert.equal(rec?.kind, "machine");
    const { state: _s, createdAt: _c, hold: _h, ...input } = rec as Extract<typeof rec, { kind: "machine" }>;
    writeFileSync(join(held.dir, "claimed-by"), "half-claimed\n");
    await host.ctx.records.put({ ...input, name: "half-claimed", claimedFrom: "pool-b" }, "creating");
    // A restarted pool stops the machines it does not keep: this one is the claimer's now.
    await host.stopMachine("pool-b");
    assert.ok(isAlive(held.supervisor!), "the claimer's machine was not killed");
    assert.equal(await host.machineStatus("pool-b"), undefined);
    assert.equal((await host.machineStatus("half-claimed"))?.running, false, "an unfinished claim does not count as running");
    await host.stopMachine("half-claimed");
    assert.ok(await waitGone([held.supervisor!]));
    assert.ok(!(await host.netnsExists(held.netns)));
    assert.ok(!existsSync(held.dir));
    assert.deepEqual(await host.listRecords((id) => id.includes("pool-b") || id.includes("half-claimed")), []);
  });

  test("a held machine never claimed is removed like any machine", async () => {
    const { host } = t!;
    const held = await host.startMachine(holdSpec("pool-c"));
    t!.tracker.netns(held.netns);
    await host.stopMachine("pool-c");
    assert.ok(await waitGone([held.supervisor!]));
    assert.ok(!existsSync(held.dir));
    assert.deepEqual(await host.listRecords((id) => id.includes("pool-c")), []);
  });

  test("kill -9 of the supervisor takes every process of the machine with it; stopMachine cleans the rest", async () => {
    const { host } = t!;
    const sup = info.supervisor!;
    const before = t!.tracker.processes();
    assert.ok(before.length >= 2, "init and sshd run in the machine");
    process.kill(sup.pid, "SIGKILL");
    assert.ok(await waitGone([sup]));
    assert.ok(await waitGone([info.init!]), "PID 1 died with its supervisor");
    // The kernel kills the rest of the PID namespace with its PID 1.
    const deadline = Date.now() + 5000;
    while (t!.tracker.processes().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(t!.tracker.processes(), [], "no sshd or anything else survives");
    const status = await host.machineStatus("bastion-one");
    assert.equal(status?.running, false);
    assert.ok(!isAlive(sup));
    await host.stopMachine("bastion-one");
    assert.ok(!(await host.netnsExists(info.netns)));
    assert.ok(!existsSync(info.dir));
    assert.equal(await host.linkExists(info.interfaces[0]!.hostLink, ns("pub")), false);
  });

  test("a new machine at a reused address is reachable at once: it announces the address when it boots", async () => {
    const { host } = t!;
    // The client still believes the address belongs to an earlier machine's MAC, as after a deleted bastion.
    const stale = "02:00:5e:00:53:01";
    await host.execInNetns(ns("client"), "ip", ["neigh", "replace", addr, "lladdr", stale, "dev", "eth0", "nud", "reachable"]);
    const again = await host.startMachine({
      name: "bastion-again",
      owner: "test",
      networks: [{ bridge: host.names.link("pub"), bridgeNetns: ns("pub"), address: `${addr}/24` }],
      userData: "#!/bin/sh\nsystemctl start sshd\n",
      sshd: { hostKeyTypes: ["ed25519"] },
      readyTimeoutMs: 30_000,
    });
    t!.tracker.netns(again.netns);
    const mac = /link\/ether ([0-9a-f:]{17})/.exec((await host.execInNetns(again.netns, "ip", ["-o", "link", "show", "dev", "eth0"])).stdout)![1]!;
    const neighbour = async () => (await host.execInNetns(ns("client"), "ip", ["neigh", "show", addr, "dev", "eth0"])).stdout;
    const deadline = Date.now() + 3000;
    while (!(await neighbour()).includes(mac) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.match(await neighbour(), new RegExp(`lladdr ${mac}`), "the client learnt the new MAC without waiting for its entry to expire");
    const scan = await host.execInNetns(ns("client"), "ssh-keyscan", ["-T", "3", "-t", "ed25519", addr], { okExitCodes: [0, 1] });
    assert.ok(scan.stdout.includes(again.hostKeys[0]!.split(" ")[1]!), `sshd answers at once: ${scan.stderr}`);
    await host.stopMachine("bastion-again");
  });
});
