// provider-local for real (root): a seed API server, the generic reconciler with the local actuator, two
// shoots with worker machines, users on the public network. A Bastion with alice's /32 gets ready; alice
// jumps through it to a node with the node key; nobody else gets through, the bastion reaches nothing but
// TCP 22 of its own shoot's nodes, an ingress change cuts the old source (established sessions too),
// and deletion leaves nothing on the host.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExtensionBastion } from "../../../src/apis/extensions/v1alpha1/types.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { ExtensionBastions } from "../../../src/extensions/resources.ts";
import type { Worker } from "../../../src/provider-local/machines/workers.ts";
import { bastionMachineName } from "../../../src/provider-local/controller/bastion/actuator.ts";
import { mountPoints } from "../../../src/host/mounts.ts";
import { isAlive, type ProcessRef } from "../../../src/host/procs.ts";
import { eventually } from "../../support/http.ts";
import { NC, canConnect, cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, snapshot, type TestHost } from "../host/support.ts";
import { createShoot, extensionBastion, sshConfig, startSeed, succeeded, type Seed } from "./support.ts";

const A = "shoot--p--a";
const B = "shoot--p--b";

describe("provider-local e2e: bastions on this host", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let seed: Seed | undefined;
  const keys: Record<"user" | "node" | "other", string> = { user: "", node: "", other: "" };
  let alice: { netns: string; address: string };
  let mallory: { netns: string; address: string };
  let workersA: Worker[];
  let workersB: Worker[];
  let bastionA: ExtensionBastion;
  let bastionB: ExtensionBastion;
  let cfgAlice: string;
  let cfgOther: string;
  let init: ProcessRef | undefined;

  const host = () => t!.host;
  const ssh = (netns: string, config: string, ...args: string[]) => host().execInNetns(netns, "ssh", ["-F", config, ...args], { okExitCodes: [0, 1, 255] });
  const inBastion = (b: ExtensionBastion, cmd: string, ...args: string[]) =>
    host().execInMachine(bastionMachineName(b.metadata.namespace!, b.metadata.name!), cmd, args, { okExitCodes: [0, 1, 2] });
  const bastionConnects = async (b: ExtensionBastion, address: string, port: number) => (await inBastion(b, NC, "-z", "-w", "1", address, String(port))).exitCode === 0;

  before(async () => {
    t = await newTestHost();
    for (const k of Object.keys(keys) as (keyof typeof keys)[]) {
      keys[k] = join(t.stateDir, `id_${k}`);
      await t.host.ctx.exec.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", k, "-f", keys[k]]);
    }
    seed = await startSeed(t.host, t.stateDir);
    const { networks } = seed.provider;
    await networks.ensurePublic();
    alice = await networks.attachUser("alice");
    mallory = await networks.attachUser("mallory");
    t.tracker.netns(alice.netns);
    t.tracker.netns(mallory.netns);
    const nodeKeyPub = await readFile(`${keys.node}.pub`, "utf8");
    workersA = (await createShoot(seed, A, ["w1", "w2"], nodeKeyPub)).workers;
    workersB = (await createShoot(seed, B, ["w1"], nodeKeyPub)).workers;
    for (const w of [...workersA, ...workersB]) t.tracker.pidnsOf(w.info.init!.pid);

    const userPub = await readFile(`${keys.user}.pub`, "utf8");
    bastionA = await seed.client.create(ExtensionBastions, extensionBastion(A, "b1", userPub, [`${alice.address}/32`]));
    bastionB = await seed.client.create(ExtensionBastions, extensionBastion(B, "b2", userPub, [`${alice.address}/32`]));
    bastionA = await succeeded(seed, A, "b1");
    bastionB = await succeeded(seed, B, "b2");
    const info = await t.host.machineStatus(bastionMachineName(A, "b1"));
    init = info?.init;
    t.tracker.netns(info!.netns);
    t.tracker.pidnsOf(init!.pid);

    // known_hosts from what the provider reported (bastions) and what the workers serve.
    const lines: string[] = [];
    for (const b of [bastionA, bastionB]) {
      for (const k of b.status!.providerStatus!.sshHostKeys as string[]) lines.push(`${b.status!.ingress!.ip} ${k}`);
    }
    for (const w of [...workersA, ...workersB]) for (const k of w.info.hostKeys) lines.push(`${w.address} ${k}`);
    const knownHosts = join(t.stateDir, "known_hosts");
    await writeFile(knownHosts, lines.join("\n") + "\n");
    const base = { knownHosts, nodeKey: keys.node, publicPrefix: networks.public.cidr.split(".").slice(0, 3).join(".") + ".", nodePrefix: "10.250." };
    cfgAlice = await sshConfig(join(t.stateDir, "ssh_config"), { ...base, bastionKey: keys.user });
    cfgOther = await sshConfig(join(t.stateDir, "ssh_config_other"), { ...base, bastionKey: keys.other });
    // A listener on a port other than 22 on worker w1 of shoot a: reachable from its neighbour, not from the bastion.
    await t.host.startProcess({ name: "w1-listener", netns: workersA[0]!.info.netns, command: NC, args: ["-lkn", "0.0.0.0", "8080"] });
  });

  after(async () => {
    await seed?.stop().catch(() => undefined);
    await cleanUpAndAssertNoLeaks(t);
  });

  test("the Bastion gets ready: public address, host keys sorted by type, the workers allow its node address", async () => {
    const ip = bastionA.status!.ingress!.ip!;
    assert.ok(ip.startsWith("198.18."));
    const info = (await host().machineStatus(bastionMachineName(A, "b1")))!;
    assert.deepEqual(bastionA.status!.providerStatus!.sshHostKeys, info.hostKeys);
    // One of the two was made from the pool's held machine (docs/adr/0015-bastion-machine-pool.md), the other started.
    const dirs = [info.dir, (await host().machineStatus(bastionMachineName(B, "b2")))!.dir].map((d) => d.split("/").pop()!);
    assert.equal(dirs.filter((d) => d.startsWith("pool.bastion-")).length, 1, `machine directories ${dirs.join(", ")}`);
    assert.deepEqual((info.hostKeys).map((k) => k.split(" ")[0]), ["ecdsa-sha2-nistp256", "ssh-ed25519"]);
    const nodeAddr = info.interfaces.find((i) => i.name === "eth1")!.address.split("/")[0];
    for (const w of workersA) {
      assert.deepEqual(await host().getSetElements(w.info.netns, { family: "inet", name: "bastion_access" }, "bastions4"), [nodeAddr]);
    }
  });

  test("alice jumps through the bastion to each node of her shoot with the right keys", async () => {
    for (const w of workersA) {
      const r = await ssh(alice.netns, cfgAlice, "-J", `gardener@${bastionA.status!.ingress!.ip}`, `gardener@${w.address}`, "hostname");
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stdout.trim(), "worker-" + (w === workersA[0] ? "w1" : "w2"));
    }
  });

  test("another key is refused by the bastion", async () => {
    const r = await ssh(alice.netns, cfgOther, `gardener@${bastionA.status!.ingress!.ip}`, "true");
    assert.equal(r.exitCode, 255);
    assert.match(r.stderr, /Permission denied/);
  });

  test("a namespace outside spec.ingress gets nothing; alice cannot reach a node directly", async () => {
    const ip = bastionA.status!.ingress!.ip!;
    assert.equal(await canConnect(host(), alice.netns, ip, 22), true);
    assert.equal(await canConnect(host(), mallory.netns, ip, 22), false);
    const node = workersA[0]!.address;
    assert.equal(await canConnect(host(), alice.netns, node, 22), false);
    // Even with a route through the shoot's router, the router forwards nothing inwards.
    const book = await seed!.provider.networks.addresses.read();
    const router = book["public"]![`router/${A}`]!;
    await host().ensureRoute({ netns: alice.netns, destination: `${node}/32`, via: router });
    assert.equal(await canConnect(host(), alice.netns, node, 22), false);
    assert.equal(await canConnect(host(), alice.netns, node, 8080), false);
    await host().deleteRoute({ netns: alice.netns, destination: `${node}/32`, via: router });
  });

  test("from the bastion only TCP 22 to its shoot's nodes works", async () => {
    const [w1, w2] = workersA;
    // The listener works: w2 reaches it.
    const fromW2 = await host().execInMachine(w2!.machine, NC, ["-z", "-w", "1", w1!.address, "8080"], { okExitCodes: [0, 1] });
    assert.equal(fromW2.exitCode, 0);
    assert.equal(await bastionConnects(bastionA, w1!.address, 22), true);
    assert.equal(await bastionConnects(bastionA, w1!.address, 8080), false);
    const ping = await inBastion(bastionA, "ping", "-c", "1", "-w", "1", w1!.address);
    assert.notEqual(ping.exitCode, 0);
    assert.equal(await bastionConnects(bastionA, alice.address, 22), false, "no outbound to the public network");
    assert.equal(await bastionConnects(bastionA, workersB[0]!.address, 22), false, "no way to another shoot's nodes");
    assert.equal(await bastionConnects(bastionB, w1!.address, 22), false);
    // Shoot b's bastion reaches shoot b's node; shoot a's workers do not list it.
    assert.equal(await bastionConnects(bastionB, workersB[0]!.address, 22), true);
    // A node accepts SSH only from its bastions: its neighbour is refused.
    const fromNeighbour = await host().execInMachine(w2!.machine, NC, ["-z", "-w", "1", w1!.address, "22"], { okExitCodes: [0, 1] });
    assert.equal(fromNeighbour.exitCode, 1);
  });

  test("after a provider restart, changing spec.ingress cuts the old source, established sessions included, without rebuilding", async () => {
    const ip = bastionA.status!.ingress!.ip!;
    // A restarted provider finds the machine, its addresses and its table again from the records.
    await seed!.restartProvider();
    const session = await host().startProcess({ name: "alice-session", netns: alice.netns, command: "ssh", args: ["-F", cfgAlice, `gardener@${ip}`, "sleep", "120"] });
    await eventually("alice's session established", async () => {
      const r = await host().execInMachine(bastionMachineName(A, "b1"), "pgrep", ["-u", "gardener", "sleep"], { okExitCodes: [0, 1] });
      return r.exitCode === 0 ? true : undefined;
    }, 15_000);
    const patched = await seed!.client.patch(ExtensionBastions, { namespace: A, name: "b1" }, {
      type: "merge",
      body: { metadata: { annotations: { "gardener.cloud/operation": "reconcile" } }, spec: { ingress: [{ ipBlock: { cidr: `${mallory.address}/32` } }] } },
    });
    await succeeded(seed!, A, "b1", patched.metadata.generation);
    assert.equal(await canConnect(host(), alice.netns, ip, 22), false);
    assert.equal(await canConnect(host(), mallory.netns, ip, 22), true);
    await eventually("alice's established session cut", async () => ((await host().processStatus(session.name))?.running ? undefined : true), 15_000);
    const info = await host().machineStatus(bastionMachineName(A, "b1"));
    assert.deepEqual(info?.init, init, "the machine was not rebuilt");
    await host().stopProcess(session.name);
  });

  test("deleting the Bastion leaves no host resource and removes it from the workers", async () => {
    const machine = bastionMachineName(A, "b1");
    const info = (await host().machineStatus(machine))!;
    await seed!.client.delete(ExtensionBastions, { namespace: A, name: "b1" });
    await eventually("bastion b1 gone", async () => {
      try {
        await seed!.client.get(ExtensionBastions, { namespace: A, name: "b1" });
        return undefined;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    }, 30_000);
    const snap = await snapshot();
    assert.equal(snap.netns.includes(info.netns), false, "netns");
    for (const i of info.interfaces) assert.equal(await host().linkExists(i.hostLink, i.bridgeNetns), false, `link ${i.hostLink}`);
    assert.deepEqual((await mountPoints()).filter((m) => m.startsWith(info.dir)), [], "mounts");
    assert.equal(existsSync(info.dir), false, "machine directory");
    assert.equal(isAlive(init!), false, "machine processes");
    assert.equal(await host().netnsExists(info.netns), false, "nft table (its namespace is gone)");
    assert.deepEqual((await host().listRecords()).filter((r) => r.parent === `machine/${machine}` || (r.kind === "machine" && r.name === machine)), []);
    for (const w of workersA) {
      assert.deepEqual(await host().getSetElements(w.info.netns, { family: "inet", name: "bastion_access" }, "bastions4"), []);
    }
    const book = await seed!.provider.networks.addresses.read();
    assert.equal(book["public"]?.[`bastion/${A}/b1`], undefined, "public address released");
    // Shoot b's bastion is untouched.
    assert.equal((await host().machineStatus(bastionMachineName(B, "b2")))?.ready, true);
  });
});
