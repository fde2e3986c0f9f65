// Crash durability of the real server over SQLite and over etcd: writers create, update and delete
// ConfigMaps one request after another, recording every acknowledged (2xx) write; the test SIGKILLs
// the server mid-stream, restarts it and checks that every acknowledged write survived, and that
// resourceVersions keep growing after the crash.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startEtcd, type RunningEtcd } from "../../../src/host/etcd.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient, type RawClient } from "../../support/http.ts";

const ns = "dur";
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const json = { "content-type": "application/json" };

interface Acked {
  created: Map<string, Record<string, string>>;
  deleted: Set<string>;
  /** Deletes sent but never answered (the server died): the object may or may not be gone. */
  unanswered: Set<string>;
  counter: number;
  maxRv: number;
  /** HTTP answers other than success while the server was up: always a bug. */
  unexpected: string[];
}

/** A request the server answered with an unexpected status (as opposed to one it never answered). */
class Unexpected extends Error {}

/** Runs creators, an updater and a deleter until the server stops answering. */
async function writeUntilDead(c: RawClient, round: number, acked: Acked): Promise<void> {
  let alive = true;
  const rv = (body: string) => {
    const v = Number((JSON.parse(body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    acked.maxRv = Math.max(acked.maxRv, v);
  };
  const creator = async (w: number) => {
    for (let i = 0; alive; i++) {
      const name = `r${round}-w${w}-${i}`;
      const data = { i: String(i), payload: randomBytes(96).toString("base64") };
      try {
        const res = await c.request({ method: "POST", path: cms, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data }), headers: json, timeoutMs: 5000 });
        if (res.status !== 201) throw new Unexpected(`create ${name}: ${res.status} ${res.body}`);
        acked.created.set(name, data);
        rv(res.body);
      } catch (e) {
        if (e instanceof Unexpected) acked.unexpected.push(e.message);
        alive = false;
      }
    }
  };
  const updater = async () => {
    for (let n = acked.counter + 1; alive; n++) {
      const patch = JSON.stringify({ data: { n: String(n) } });
      try {
        const res = await c.request({ method: "PATCH", path: `${cms}/counter`, body: patch, headers: { "content-type": "application/merge-patch+json" }, timeoutMs: 5000 });
        if (res.status !== 200) throw new Unexpected(`update counter: ${res.status} ${res.body}`);
        acked.counter = n;
        rv(res.body);
      } catch (e) {
        if (e instanceof Unexpected) acked.unexpected.push(e.message);
        alive = false;
      }
    }
  };
  const deleter = async () => {
    while (alive) {
      const victim = [...acked.created.keys()].find((n) => n.endsWith("-0") || n.endsWith("5"));
      if (!victim) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      try {
        const res = await c.request({ method: "DELETE", path: `${cms}/${victim}`, timeoutMs: 5000 });
        if (res.status !== 200) throw new Unexpected(`delete ${victim}: ${res.status} ${res.body}`);
        acked.created.delete(victim);
        acked.deleted.add(victim);
      } catch (e) {
        if (e instanceof Unexpected) acked.unexpected.push(e.message);
        else {
          acked.created.delete(victim);
          acked.unanswered.add(victim);
        }
        alive = false;
      }
    }
  };
  await Promise.all([creator(0), creator(1), updater(), deleter()]);
}

function runDurability(storage: "sqlite" | "etcd"): void {
  void describe(`durability over ${storage}`, { timeout: 180_000 }, () => {
    let dir: string;
    let etcd: RunningEtcd | undefined;
    let server: ApiServerProcess;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `gapi-durability-${storage}-`));
      if (storage === "etcd") etcd = await startEtcd({ dataDir: join(dir, "etcd") });
      server = await startApiServerProcess({ storage, dataDir: join(dir, "data"), ...(etcd ? { etcdEndpoint: etcd.endpoint } : {}) });
      const c = rawClient(server.kubeconfig);
      try {
        const nsRes = await c.request({ method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }), headers: json });
        assert.equal(nsRes.status, 201, nsRes.body);
        const counter = await c.request({ method: "POST", path: cms, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "counter" }, data: { n: "0" } }), headers: json });
        assert.equal(counter.status, 201, counter.body);
      } finally {
        c.close();
      }
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    void it("keeps every acknowledged create, update and delete across two SIGKILLs", async (t) => {
      const acked: Acked = { created: new Map(), deleted: new Set(), unanswered: new Set(), counter: 0, maxRv: 0, unexpected: [] };
      for (const round of [1, 2]) {
        const c = rawClient(server.kubeconfig, { maxSockets: 6 });
        const killAt = acked.created.size + 120 + Math.floor(Math.random() * 80);
        const writing = writeUntilDead(c, round, acked);
        const enough = () => (acked.created.size >= killAt || acked.unexpected.length > 0 ? true : undefined);
        await eventually(`${killAt} acknowledged creates`, enough, 60_000, 5);
        assert.deepEqual(acked.unexpected, [], "the server refused a write while it was up");
        await server.kill("SIGKILL");
        await writing;
        t.diagnostic(`round ${round}: killed after ${acked.created.size} live creates, ${acked.deleted.size} deletes, counter ${acked.counter}`);
        c.close();
        await server.restart();

        const check = rawClient(server.kubeconfig);
        try {
          const list = (await check.request({ path: cms })).json<{ metadata: { resourceVersion: string }; items: { metadata: { name: string }; data: Record<string, string> }[] }>();
          const stored = new Map(list.items.map((i) => [i.metadata.name, i.data]));
          const lost = [...acked.created.keys()].filter((n) => !stored.has(n));
          assert.deepEqual(lost.slice(0, 20), [], `round ${round}: ${lost.length} of ${acked.created.size} acknowledged creates are missing after SIGKILL`);
          for (const [name, data] of acked.created) assert.deepEqual(stored.get(name), data, `round ${round}: data of ${name}`);
          const resurrected = [...acked.deleted].filter((n) => stored.has(n));
          assert.deepEqual(resurrected, [], `round ${round}: acknowledged deletes came back`);
          const n = Number(stored.get("counter")?.n);
          assert.ok(n >= acked.counter, `round ${round}: counter is ${n}, but update ${acked.counter} was acknowledged`);
          acked.counter = n;
          assert.ok(Number(list.metadata.resourceVersion) >= acked.maxRv, `round ${round}: list RV ${list.metadata.resourceVersion} is behind acknowledged RV ${acked.maxRv}`);

          const fresh = await check.request({ method: "POST", path: cms, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `after-${round}` } }), headers: json });
          assert.equal(fresh.status, 201, fresh.body);
          const freshRv = Number(fresh.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
          assert.ok(freshRv > acked.maxRv, `round ${round}: a write after the crash got RV ${freshRv}, not above ${acked.maxRv}: revisions were reused`);
          acked.maxRv = freshRv;
        } finally {
          check.close();
        }
      }
    });
  });
}

runDurability("sqlite");
runDurability("etcd");
