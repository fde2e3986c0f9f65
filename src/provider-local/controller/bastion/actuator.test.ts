import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pino } from "pino";
import type { Cluster, ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { ActuatorContext } from "../../../extensions/controller/bastion/actuator.ts";
import { ErrorWithCodes, RequeueAfterError, extractErrorCodes } from "../../../extensions/controller/errors.ts";
import { FakeHost, renderTable } from "../../../host/index.ts";
import { startWorker, workerMachineName } from "../../machines/workers.ts";
import { MemoryAddressBook } from "../../network/addresses.ts";
import { LocalNetworks } from "../../network/networks.ts";
import { LocalBastionActuator, bastionMachineName } from "./actuator.ts";

const NS = "shoot--p--s";
const OTHER = "shoot--p--t";

function bastion(name: string, cidrs: string[], except: string[] = [], namespace = NS): ExtensionBastion {
  return {
    metadata: { name, namespace },
    spec: { type: "local", userData: Buffer.from("#!/bin/bash -eu\necho hi\n").toString("base64"), ingress: cidrs.map((cidr) => ({ ipBlock: { cidr, ...(except.length ? { except } : {}) } })) },
  };
}

function cluster(namespace: string, nodes: string): Cluster {
  return { metadata: { name: namespace }, spec: { cloudProfile: {}, seed: {}, shoot: { spec: { networking: { nodes } } } } };
}

interface Patched {
  key: string;
  body: unknown;
}

function setup(o: { boot?: "ready" | "manual"; readyTimeoutMs?: number } = {}) {
  const host = new FakeHost({ boot: o.boot ?? "ready" });
  const networks = new LocalNetworks({ host, addresses: new MemoryAddressBook() });
  const patched: Patched[] = [];
  const actuator = new LocalBastionActuator({ networks, readyTimeoutMs: o.readyTimeoutMs ?? 1000, readyRequeueMs: 5000, deleteRequeueMs: 10_000 });
  // The status a reconcile reports, which the generic reconciler writes with its Succeeded.
  const reconcile = actuator.reconcile.bind(actuator);
  actuator.reconcile = async (c, b, cl) => {
    const status = await reconcile(c, b, cl);
    patched.push({ key: `${b.metadata.namespace}/${b.metadata.name}`, body: { status } });
    return status;
  };
  const ctx: ActuatorContext = { log: pino({ level: "silent" }), signal: new AbortController().signal };
  return { host, networks, actuator, ctx, patched };
}

const accessSet = (host: FakeHost, worker: string) =>
  host.getSetElements(host.names.machineNetns(worker), { family: "inet", name: "bastion_access" }, "bastions4");

describe("LocalBastionActuator", () => {
  test("reconcile: machine on public and node network, table before userData, workers allow it, status reported", async () => {
    const { host, networks, actuator, ctx, patched } = setup();
    const net = await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1" });
    assert.deepEqual(await accessSet(host, w.machine), []);

    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"], ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    const machine = bastionMachineName(NS, "b1");
    assert.equal(machine, "shoot--p--s.bastion-b1");
    const spec = host.machineSpec(machine);
    assert.equal(spec.owner, "bastion/shoot--p--s/b1");
    assert.equal(spec.hostname, "bastion-b1");
    assert.deepEqual(spec.networks.map((n) => [n.interface, n.bridgeNetns, n.address]), [
      ["eth0", networks.public.netns, "198.18.0.3/16"],
      ["eth1", net.netns, "10.250.0.3/24"],
    ]);
    assert.equal(spec.userData, "#!/bin/bash -eu\necho hi\n");
    assert.deepEqual(spec.sshd?.listenAddresses, ["198.18.0.3"]);
    assert.equal(spec.sshd?.options?.AllowUsers, "gardener");
    const table = renderTable(spec.nftTables![0]!);
    assert.match(table, /set ingress4 \{[^}]*elements = \{ 203\.0\.113\.7 \}/);
    assert.match(table, /set workers4 \{[^}]*elements = \{ 10\.250\.0\.0\/24 \}/);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3"]);
    assert.deepEqual(patched, [
      {
        key: `${NS}/b1`,
        body: {
          status: {
            ingress: { ip: "198.18.0.3" },
            providerStatus: { sshHostKeys: (await host.machineStatus(machine))!.hostKeys },
          },
        },
      },
    ]);
    const keys = (patched[0]!.body as { status: { providerStatus: { sshHostKeys: string[] } } }).status.providerStatus.sshHostKeys;
    assert.deepEqual(keys.map((k) => k.split(" ")[0]), ["ecdsa-sha2-nistp256", "ssh-ed25519"]);
  });

  test("ingress change: the sets are replaced in one transaction, the machine is not rebuilt", async () => {
    const { host, actuator, ctx } = setup();
    const c = cluster(NS, "10.250.0.0/24");
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), c);
    const machine = bastionMachineName(NS, "b1");
    const netns = host.names.machineNetns(machine);
    host.calls.length = 0;
    await actuator.reconcile(ctx, bastion("b1", ["198.51.100.0/24", "2001:db8::/64"], ["198.51.100.9/32"]), c);
    assert.deepEqual(host.calls.filter((x) => x.startsWith("startMachine") || x.startsWith("applyTable ga-m-") || x.startsWith("stopMachine")), []);
    const replaced = host.calls.filter((x) => x.startsWith(`replaceSetElements ${netns}`));
    assert.deepEqual(replaced, [`replaceSetElements ${netns} inet bastion ingress4=[198.51.100.0/24] ingress6=[2001:db8::/64] except4=[198.51.100.9/32] except6=[]`]);
    const ref = { family: "inet", name: "bastion" } as const;
    assert.deepEqual(await host.getSetElements(netns, ref, "ingress4"), ["198.51.100.0/24"]);
    assert.deepEqual(await host.getSetElements(netns, ref, "except4"), ["198.51.100.9"]);
  });

  test("not ready within the timeout: a 5 s requeue with Gardener's message; ready later: success", async () => {
    const { host, actuator, ctx, patched } = setup({ boot: "manual", readyTimeoutMs: 20 });
    const b = bastion("slow", ["203.0.113.7/32"]);
    await assert.rejects(actuator.reconcile(ctx, b, cluster(NS, "10.250.0.0/24")), (err: unknown) => {
      assert.ok(err instanceof RequeueAfterError);
      assert.equal(err.message, "waiting for bastion machine slow to get ready");
      assert.equal(err.delayMs, 5000);
      return true;
    });
    assert.deepEqual(patched, []);
    host.completeBoot(bastionMachineName(NS, "slow"));
    await actuator.reconcile(ctx, b, cluster(NS, "10.250.0.0/24"));
    assert.equal(patched.length, 1);
    assert.equal(host.calls.filter((c) => c.startsWith("startMachine")).length, 1);
  });

  test("workers created later start with the shoot's current bastions; other shoots are untouched", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(OTHER, "10.250.1.0/24");
    const other = await startWorker(networks, { namespace: OTHER, name: "w1" });
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    await actuator.reconcile(ctx, bastion("b2", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    const w = await startWorker(networks, { namespace: NS, name: "late" });
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.2", "10.250.0.3"]);
    assert.deepEqual(await accessSet(host, other.machine), []);
  });

  test("delete: removed from workers, machine and addresses gone; a new bastion reuses the address", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1" });
    const c = cluster(NS, "10.250.0.0/24");
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), c);
    await actuator.reconcile(ctx, bastion("b2", ["203.0.113.7/32"]), c);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3", "10.250.0.4"]);
    await actuator.delete(ctx, bastion("b1", []), c);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.4"]);
    const machine = bastionMachineName(NS, "b1");
    assert.equal(await host.machineStatus(machine), undefined);
    assert.equal(await host.netnsExists(host.names.machineNetns(machine)), false);
    assert.deepEqual((await host.listRecords()).filter((r) => r.parent === `machine/${machine}` || (r.kind === "machine" && r.name === machine)), []);
    const book = await networks.addresses.read();
    assert.deepEqual(Object.keys(book["public"] ?? {}).sort(), ["bastion/shoot--p--s/b2", "router/shoot--p--s"]);
    await actuator.delete(ctx, bastion("b1", []), c); // idempotent
    await actuator.reconcile(ctx, bastion("b3", ["203.0.113.7/32"]), c);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3", "10.250.0.4"]);
  });

  test("delete: what remains is a 10 s requeue with the number of resources; force deletion succeeds anyway", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1" });
    const c = cluster(NS, "10.250.0.0/24");
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), c);
    host.failNext("stopMachine", new Error("device busy"));
    host.failNext("replaceSetElements", new Error("worker unreachable"));
    await assert.rejects(actuator.delete(ctx, bastion("b1", []), c), (err: unknown) => {
      assert.ok(err instanceof RequeueAfterError);
      assert.match(err.message, /^waiting for \d+ bastion resources to be deleted$/);
      assert.equal(err.delayMs, 10_000);
      return true;
    });
    assert.ok(await host.machineStatus(bastionMachineName(NS, "b1")));
    assert.ok((await networks.addresses.read())["public"]?.["bastion/shoot--p--s/b1"], "the address is kept while the machine remains");

    host.failNext("replaceSetElements", new Error("worker unreachable"));
    await actuator.forceDelete(ctx, bastion("b1", []), c);
    assert.equal(await host.machineStatus(bastionMachineName(NS, "b1")), undefined);
    assert.equal((await networks.addresses.read())["public"]?.["bastion/shoot--p--s/b1"], undefined);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3"], "the unreachable worker kept its old set");
  });

  test("force deletion with the worker machine gone succeeds", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    await startWorker(networks, { namespace: NS, name: "w1" });
    const c = cluster(NS, "10.250.0.0/24");
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), c);
    host.crashMachine(workerMachineName(NS, "w1"));
    await actuator.forceDelete(ctx, bastion("b1", []), c);
    await actuator.delete(ctx, bastion("b1", []), c);
    assert.equal(await host.machineStatus(bastionMachineName(NS, "b1")), undefined);
  });

  test("a restarted provider (new actuator, same host and address book) finds the bastion again", async () => {
    const { host, networks, actuator, ctx, patched } = setup();
    const c = cluster(NS, "10.250.0.0/24");
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), c);
    const again = new LocalBastionActuator({ networks: new LocalNetworks({ host, addresses: networks.addresses }) });
    host.calls.length = 0;
    await again.reconcile(ctx, bastion("b1", ["203.0.113.8/32"]), c);
    assert.equal(host.calls.filter((x) => x.startsWith("startMachine")).length, 0);
    assert.equal(host.calls.filter((x) => x.startsWith("replaceSetElements ga-m-")).length, 1);
    assert.equal((patched[0]!.body as { status: { ingress: { ip: string } } }).status.ingress.ip, "198.18.0.3");
  });

  test("workers: on the node network with the router as gateway; none without a node network", async () => {
    const { host, networks } = setup();
    await assert.rejects(startWorker(networks, { namespace: NS, name: "w1" }), /node network of shoot--p--s does not exist/);
    const net = await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1", userData: "#!/bin/sh\n" });
    const spec = host.machineSpec(w.machine);
    assert.deepEqual(spec.networks, [{ bridge: net.bridge, bridgeNetns: net.netns, address: "10.250.0.2/24", gateway: "10.250.0.1", interface: "eth0" }]);
    assert.equal(spec.owner, "worker/shoot--p--s/w1");
    assert.equal(renderTable(spec.nftTables![0]!).includes("table inet bastion_access"), true);
  });

  test("a bastion beyond the address space fails with ERR_CONFIGURATION_PROBLEM and holds no address", async () => {
    const { host, networks, ctx, actuator } = setup();
    const c = cluster(NS, "10.250.0.0/29");
    await networks.ensureNodeNetwork(NS, "10.250.0.0/29");
    // 10.250.0.0/29: .2 to .6 for machines.
    for (const b of ["b1", "b2", "b3", "b4", "b5"]) await actuator.reconcile(ctx, bastion(b, ["203.0.113.7/32"]), c);
    const starts = host.calls.filter((x) => x.startsWith("startMachine")).length;
    const err = await actuator.reconcile(ctx, bastion("b6", ["203.0.113.7/32"]), c).then(() => undefined, (e: unknown) => e as ErrorWithCodes);
    assert.ok(err instanceof ErrorWithCodes);
    assert.deepEqual(extractErrorCodes(err), ["ERR_CONFIGURATION_PROBLEM"]);
    assert.match(err.message, /^cannot create bastion machine: no free address in 10\.250\.0\.0\/29 \(the node network of shoot--p--s\)/);
    assert.equal(host.calls.filter((x) => x.startsWith("startMachine")).length, starts, "no machine for it");
    const book = await networks.addresses.read();
    assert.equal(book["public"]?.[`bastion/${NS}/b6`], undefined, "its public address is released again");
    // Room again once another bastion is gone.
    await actuator.delete(ctx, bastion("b1", []), c);
    await actuator.reconcile(ctx, bastion("b6", ["203.0.113.7/32"]), c);
  });

  test("a shoot without a valid node CIDR is an error before anything is created", async () => {
    const { host, actuator, ctx } = setup();
    await assert.rejects(actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), cluster(NS, "not-a-cidr")), /spec\.networking\.nodes/);
    assert.deepEqual(host.calls, []);
  });

  test("a bastion being removed stays out of the workers' sets while another bastion's reconcile rewrites them", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1" });
    await actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3"]);

    // b1's machine does not go away (yet): its removal is in progress and will be retried.
    host.failNext("stopMachine");
    await assert.rejects(actuator.delete(ctx, bastion("b1", []), cluster(NS, "10.250.0.0/24")), RequeueAfterError);
    assert.ok(await host.machineStatus(bastionMachineName(NS, "b1")), "b1's machine is still there");
    await actuator.reconcile(ctx, bastion("b2", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.4"], "only b2, not the leaving b1");

    await actuator.delete(ctx, bastion("b1", []), cluster(NS, "10.250.0.0/24"));
    assert.equal(networks.leavingBastions.size, 0);
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.4"]);
  });

  test("the workers allow a new bastion while its machine is being built, and drop it when the machine cannot start", async () => {
    const { host, networks, actuator, ctx } = setup();
    await networks.ensureNodeNetwork(NS, "10.250.0.0/24");
    const w = await startWorker(networks, { namespace: NS, name: "w1" });
    // Hold b1's machine creation until the test lets it go.
    const start = host.startMachine.bind(host);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let seenWhileBuilding: string[] | undefined;
    host.startMachine = async (spec) => {
      await held;
      return start(spec);
    };
    const reconciling = actuator.reconcile(ctx, bastion("b1", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    for (let i = 0; i < 100 && seenWhileBuilding === undefined; i++) {
      await new Promise((r) => setImmediate(r));
      const now = await accessSet(host, w.machine);
      if (now.length > 0) seenWhileBuilding = now;
    }
    assert.deepEqual(seenWhileBuilding, ["10.250.0.3"], "allowed before its machine exists");
    assert.equal(await host.machineStatus(bastionMachineName(NS, "b1")), undefined);
    release();
    await reconciling;
    assert.equal(networks.arrivingBastions.size, 0);

    // b2's machine fails to start: the next rewrite (b3's) no longer allows b2's address.
    host.startMachine = () => Promise.reject(new Error("no room"));
    await assert.rejects(actuator.reconcile(ctx, bastion("b2", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24")), /no room/);
    assert.equal(networks.arrivingBastions.size, 0);
    host.startMachine = start;
    await actuator.reconcile(ctx, bastion("b3", ["203.0.113.7/32"]), cluster(NS, "10.250.0.0/24"));
    assert.deepEqual(await accessSet(host, w.machine), ["10.250.0.3", "10.250.0.5"]);
  });
});
