// High availability (docs/high-availability.md): two gardener-apiserver replicas on one 3-member
// etcd cluster. Writers stream ConfigMap creates through both replicas (a write that gets no answer
// is retried on the other replica), one watcher follows each replica (resuming from its last
// resourceVersion, on the other replica when its own is gone). Mid-stream the test SIGKILLs
// replica A, then each etcd member in turn (the leader first), restarting each before the next.
// Afterwards: every acknowledged create is stored, each watcher
// saw every create exactly once in resourceVersion order, kubectl through replica B lists them all,
// and the controllers (leader-elected on a Lease: A's while both run, then B's) still reconcile:
// the garbage collector and namespace deletion.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { etcdAvailable, startEtcdCluster, type RunningEtcdCluster } from "../../../src/host/etcd.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient, type RawClient } from "../../support/http.ts";
import { kubectlFor } from "../../support/kubectl.ts";
import { ResumingWatcher } from "./watcher.ts";

const ns = "ha";
const cms = (n: string) => `/api/v1/namespaces/${n}/configmaps`;
const json = { "content-type": "application/json" };
const lease = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/gardener-apiserver-controllers";
// Short enough that B takes over during the stream, long enough that a loaded machine does not make A miss renewals.
const electionFlags = ["--leader-elect-lease-duration=8s", "--leader-elect-renew-deadline=6s", "--leader-elect-retry-period=1s"];

interface Meta {
  metadata: { name: string; uid: string; resourceVersion: string };
}
interface List {
  metadata: { resourceVersion: string };
  items: Meta[];
}

/** The member etcd reports as its leader (etcd's JSON gateway). */
async function etcdLeader(cluster: RunningEtcdCluster): Promise<number> {
  for (const endpoint of cluster.endpoints) {
    const res = await fetch(`${endpoint}/v3/maintenance/status`, { method: "POST", body: "{}" });
    const status = (await res.json()) as { header: { member_id: string }; leader: string };
    if (status.leader === status.header.member_id) return cluster.endpoints.indexOf(endpoint);
  }
  throw new Error("no etcd member reports itself leader");
}

void describe("API server replicas on a 3-member etcd cluster", { skip: !etcdAvailable() && "/usr/bin/etcd is missing: run `npm run setup`", timeout: 120_000 }, () => {
  let dir: string;
  let cluster: RunningEtcdCluster;
  const replicas: ApiServerProcess[] = [];
  const clients: RawClient[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "gapi-ha-"));
    cluster = await startEtcdCluster({ dataDir: join(dir, "etcd") });
    for (const name of ["a", "b"]) {
      // One PKI (--cert-dir) for both: clients trust either replica and authenticate to both.
      const extraArgs = ["--cert-dir", join(dir, "pki"), ...electionFlags];
      const replica = await startApiServerProcess({ storage: "etcd", etcdEndpoint: cluster.endpoints.join(","), dataDir: join(dir, name), extraArgs });
      replicas.push(replica);
      clients.push(rawClient(replica.kubeconfig, { maxSockets: 4 }));
    }
  });
  after(async () => {
    for (const c of clients) c.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Sends a request to replica `first`, then the other one, until one answers (not 5xx), for up to 30 s. */
  async function send(first: number, req: Parameters<RawClient["request"]>[0]): Promise<{ status: number; body: string }> {
    const deadline = Date.now() + 30_000;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await clients[(first + attempt) % 2]!.request({ timeoutMs: 5000, ...req });
        if (res.status < 500) return res;
      } catch {
        // not answered: the replica is gone or etcd lost its leader
      }
      if (Date.now() > deadline) throw new Error(`${req.method ?? "GET"} ${req.path}: no replica answered within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const create = (replica: number, namespace: string, obj: Record<string, unknown>) =>
    send(replica, { method: "POST", path: cms(namespace), body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", ...obj }), headers: json });

  void it("loses no acknowledged write and no watch event when a replica and an etcd member die; controllers carry on", async (t) => {
    const nsRes = await send(0, { method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }), headers: json });
    assert.equal(nsRes.status, 201, nsRes.body);
    const start = JSON.parse((await send(1, { path: cms(ns) })).body) as List;
    const endpoints = replicas.map((r) => ({ kubeconfig: r.kubeconfig }));
    const watchers = [0, 1].map((i) => new ResumingWatcher(endpoints, cms(ns), Number(start.metadata.resourceVersion), i));
    const holderBefore = (JSON.parse((await send(0, { path: lease })).body) as { spec: { holderIdentity: string } }).spec.holderIdentity;
    // Both replicas run, one leads: the controllers run once, not twice.
    assert.match(replicas[0]!.output(), /"msg":"started leading"/, "replica A leads");
    assert.doesNotMatch(replicas[1]!.output(), /"msg":"started leading"/, "replica B does not run the controllers while A leads");

    // The stream: two writers, each alternating between the replicas.
    const acked = new Set<string>();
    const unexpected: string[] = [];
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const name = `w${w}-${i}`;
        const res = await create(i % 2, ns, { metadata: { name }, data: { i: String(i) } });
        // 409: an earlier attempt whose answer was lost did create it.
        if (res.status === 201 || res.status === 409) acked.add(name);
        else unexpected.push(`${name}: ${res.status} ${res.body.slice(0, 200)}`);
      }
    };
    const writers = Promise.all([writer(0), writer(1)]);
    const reach = (n: number) => eventually(`${n} acknowledged creates`, () => (acked.size >= n || unexpected.length > 0 ? true : undefined), 40_000, 10);

    await reach(60);
    await replicas[0]!.kill("SIGKILL");
    t.diagnostic(`SIGKILLed replica A after ${acked.size} creates`);
    await reach(acked.size + 60);
    // The leader first, then the others: each is killed and restarted in turn, so whichever member
    // carries a replica's etcd watch, that watch is cut at least once.
    const first = await etcdLeader(cluster);
    for (const i of [first, (first + 1) % 3, (first + 2) % 3]) {
      await cluster.members[i]!.kill("SIGKILL");
      t.diagnostic(`SIGKILLed etcd member ${cluster.members[i]!.name}${i === first ? " (the leader)" : ""} after ${acked.size} creates`);
      await reach(acked.size + 20);
      await cluster.restartMember(i);
      await reach(acked.size + 10);
    }
    writing = false;
    await writers;
    assert.deepEqual(unexpected, [], "a replica refused a write");

    // Every acknowledged create is stored.
    const end = JSON.parse((await send(1, { path: cms(ns) })).body) as List;
    const stored = new Map(end.items.map((i) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
    const lost = [...acked].filter((n) => !stored.has(n));
    assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged creates are missing`);

    // Every watcher saw every create once, in resourceVersion order, with no gap. Creates that went
    // to etcd in one transaction share a resourceVersion (docs/adr/0018-etcd-write-batches.md):
    // among those the order is the transaction's, so both sides are compared sorted by name there.
    const byRvThenName = (a: readonly [string, number, ...unknown[]], b: readonly [string, number, ...unknown[]]) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const expected = [...stored].filter(([n]) => /^w\d-/.test(n)).sort(byRvThenName);
    const endRv = Number(end.metadata.resourceVersion);
    for (const [i, w] of watchers.entries()) {
      await eventually(`watcher ${i} reaches ${endRv}`, () => (w.lastRv >= expected.at(-1)![1] ? true : undefined), 20_000);
      await w.stop();
      const seen = w.events.filter((e) => /^w\d-/.test(e.name)).map((e) => [e.name, e.rv, e.type] as const);
      assert.ok(
        seen.every((e, k) => k === 0 || seen[k - 1]![1] <= e[1]),
        `watcher ${i}: events out of resourceVersion order`,
      );
      assert.deepEqual([...seen].sort(byRvThenName), expected.map(([n, rv]) => [n, rv, "ADDED"]), `watcher ${i} (connections: ${w.connections.join(", ")})`);
      assert.deepEqual(w.failures, [], `watcher ${i} was refused`);
      t.diagnostic(`watcher ${i}: ${seen.length} events over ${w.connections.length} connection(s)`);
    }

    // The controllers moved to replica B with the Lease and still reconcile.
    const holderAfter = await eventually("replica B holds the controllers Lease", async () => {
      const h = (JSON.parse((await send(1, { path: lease })).body) as { spec: { holderIdentity: string } }).spec.holderIdentity;
      return h && h !== holderBefore ? h : undefined;
    });
    t.diagnostic(`controllers Lease: ${holderBefore} -> ${holderAfter}`);
    // The Lease is written before the controllers' informers have synced; the log line comes after.
    await eventually("replica B took over the controllers", () => (/"msg":"started leading"/.test(replicas[1]!.output()) ? true : undefined));
    // kubectl through the surviving replica sees the whole stream.
    const names = await kubectlFor(replicas[1]!.kubeconfig).ok(["get", "configmaps", "-n", ns, "-o", "name"]);
    assert.equal(names.split("\n").filter((l) => /^configmap\/w\d-/.test(l)).length, expected.length);
    const owner = JSON.parse((await create(1, ns, { metadata: { name: "owner" } })).body) as Meta;
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }];
    assert.equal((await create(1, ns, { metadata: { name: "dependent", ownerReferences } })).status, 201);
    assert.equal((await send(1, { method: "DELETE", path: `${cms(ns)}/owner` })).status, 200);
    await eventually("the garbage collector deletes the dependent", async () => ((await send(1, { path: `${cms(ns)}/dependent` })).status === 404 ? true : undefined), 20_000);
    await send(1, { method: "DELETE", path: `/api/v1/namespaces/${ns}` });
    await eventually("namespace deletion removes the namespace", async () => ((await send(1, { path: `/api/v1/namespaces/${ns}` })).status === 404 ? true : undefined), 20_000);
  });
});
