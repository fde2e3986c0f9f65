// gardener-apiserver --workers (docs/high-availability.md#workers), on one etcd member and on SQLite
// (the primary owns the database, the workers call it): the primary hands connections to its two
// worker threads in turn. A write through a connection of worker 0
// is seen by a watch that worker 1 serves; audit events of both reach the primary's one log with
// the client's address; a killed worker's connections are cut, the next requests succeed on the
// other, and the primary restarts it. The real binary with --workers 2 serves and exits 0 on SIGTERM.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { connect as tlsConnect } from "node:tls";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { parseOptions } from "../../../src/apiserver/server/options.ts";
import { startWorkers, type RunningWorkers } from "../../../src/apiserver/server/workers/primary.ts";
import { etcdAvailable, startEtcd, type RunningEtcd } from "../../../src/host/etcd.ts";
import { startApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient } from "../../support/http.ts";
import { readKubeconfig } from "../../support/kubeconfig.ts";

const entry = new URL("../../../src/cmd/gardener-apiserver-worker.ts", import.meta.url).href;
const cms = "/api/v1/namespaces/default/configmaps";

interface Answer {
  status: number;
  body: string;
  /** The client's port of the connection that carried it. */
  localPort: number;
}

for (const storage of ["etcd", "sqlite"] as const) {
const skip = storage === "etcd" && !etcdAvailable() && "/usr/bin/etcd is missing: run `npm run setup`";
void describe(`gardener-apiserver --workers on ${storage}`, { skip, timeout: 120_000 }, () => {
  let dir: string;
  let etcd: RunningEtcd | undefined;
  let primary: RunningWorkers;
  let kc: ReturnType<typeof readKubeconfig>;
  const agents: Agent[] = [];

  /** A client of one connection at a time (a keep-alive agent with one socket). */
  const connection = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
    agents.push(agent);
    return agent;
  };
  const send = (agent: Agent, method: string, path: string, body?: object) =>
    new Promise<Answer>((resolve, reject) => {
      const r = request({ agent, host: "127.0.0.1", port: primary.port, method, path, headers: { "content-type": "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        const localPort = res.socket.localPort ?? 0;
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), localPort }));
        res.on("error", reject);
      });
      r.on("error", reject);
      r.end(body ? JSON.stringify(body) : undefined);
    });
  const create = (agent: Agent, name: string) => send(agent, "POST", cms, { metadata: { name } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "gapi-workers-"));
    if (storage === "etcd") etcd = await startEtcd({ dataDir: join(dir, "etcd") });
    writeFileSync(join(dir, "policy.yaml"), "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{ group: '', resources: [configmaps] }]\n");
    const parsed = parseOptions([
      ...["--data-dir", join(dir, "data"), "--secure-port", "0", ...(etcd ? ["--etcd-servers", etcd.endpoint] : []), "--workers", "2", "--log-level", "warn"],
      ...["--audit-policy-file", join(dir, "policy.yaml"), "--audit-log-path", join(dir, "audit.log")],
      // Above the 4 watches the admin opens at once below.
      ...["--max-watches-per-user", "5"],
    ]);
    assert.equal(parsed.kind, "options");
    if (parsed.kind !== "options") return;
    primary = await startWorkers(parsed.options, { entry, logger: pino({ level: "silent" }), restartDelayMs: 100 });
    kc = readKubeconfig(join(dir, "data", "admin.kubeconfig"));
  });
  after(async () => {
    for (const a of agents) a.destroy();
    await primary?.stop();
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it("serves a watch on one worker with the writes of another, and survives a killed worker", async () => {
    const writer = connection();
    const watcher = connection();
    const first = await send(writer, "GET", cms);
    assert.equal(first.status, 200);
    const list = await send(watcher, "GET", cms);
    // Connections go to the workers in turn.
    assert.equal(primary.relay.workerOfClientPort(first.localPort), 0);
    assert.equal(primary.relay.workerOfClientPort(list.localPort), 1);

    const rv = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const seen: string[] = [];
    let watchEnded = false;
    request({ agent: watcher, host: "127.0.0.1", port: primary.port, path: `${cms}?watch=1&resourceVersion=${rv}` }, (res) => {
      let buf = "";
      res.on("data", (c: Buffer) => {
        buf += c.toString();
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          seen.push((JSON.parse(buf.slice(0, i)) as { object: { metadata: { name: string } } }).object.metadata.name);
          buf = buf.slice(i + 1);
        }
      });
      res.on("end", () => (watchEnded = true));
    }).end();

    assert.equal((await create(writer, "through-worker-0")).status, 201);
    await eventually("worker 1's watch to see worker 0's write", () => (seen.includes("through-worker-0") ? true : undefined));

    // One encoded event written to several watches of one worker (a large object: its own buffer)
    // reaches each of them whole.
    const big = "x".repeat(20_000);
    const bigWatches = [connection(), connection(), connection()].map((agent) => {
      const got: string[] = [];
      const done = new Promise<number>((resolve) => {
        request({ agent, host: "127.0.0.1", port: primary.port, path: `${cms}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dbig` }, (res) => {
          const port = res.socket.localPort ?? 0;
          let buf = "";
          res.on("data", (c: Buffer) => {
            buf += c.toString();
            for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
              got.push((JSON.parse(buf.slice(0, i)) as { object: { data: { k: string } } }).object.data.k);
              buf = buf.slice(i + 1);
              resolve(port);
            }
          });
        }).end();
      });
      return { got, done };
    });
    await eventually("three big watches to open", () => (primary.relay.connectionCounts().reduce((a, b) => a + b, 0) >= 5 ? true : undefined));
    assert.equal((await send(writer, "POST", cms, { metadata: { name: "big" }, data: { k: big } })).status, 201);
    const ports = await Promise.all(bigWatches.map((w) => w.done));
    for (const w of bigWatches) assert.deepEqual(w.got, [big]);
    // Three connections on two workers: two of them share one.
    assert.ok(new Set(ports.map((p) => primary.relay.workerOfClientPort(p))).size < 3);
    for (const a of agents.slice(-3)) a.destroy();

    const events = () =>
      readFileSync(join(dir, "audit.log"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { verb: string; stage: string; sourceIPs: string[]; objectRef?: { name?: string } });
    // (An audit event still queued in a worker that crashes is lost, as in a process that crashes.)
    await eventually("the audit events of the first creates", () => (events().filter((e) => e.verb === "create" && e.stage === "ResponseComplete").length === 2 ? true : undefined));

    // A crash of worker 0: its connection is cut; the next requests succeed (on worker 1).
    await primary.kill(0);
    await eventually("the writer's connection to close", () => (Object.keys(writer.freeSockets).length === 0 ? true : undefined));
    for (const name of ["after-kill-1", "after-kill-2", "after-kill-3"]) assert.equal((await create(writer, name)).status, 201, name);
    await primary.ready(0);
    assert.deepEqual(primary.starts(), [2, 1]);
    // The restarted worker serves again, and the watch on worker 1 went on.
    const third = connection();
    const got = await send(third, "GET", `${cms}/after-kill-3`);
    assert.equal(got.status, 200);
    await eventually("the watch to see every write", () => (["after-kill-1", "after-kill-2", "after-kill-3"].every((n) => seen.includes(n)) ? true : undefined));
    assert.equal(watchEnded, false);
    assert.deepEqual(seen, ["through-worker-0", "big", "after-kill-1", "after-kill-2", "after-kill-3"]);

    // Both workers' audit events are in the primary's one log, with the client's address.
    await eventually("audit events of the creates", () => (events().filter((e) => e.verb === "create" && e.stage === "ResponseComplete").length === 5 ? true : undefined));
    for (const e of events()) assert.deepEqual(e.sourceIPs, ["127.0.0.1"]);
    assert.ok(events().some((e) => e.verb === "watch"));
  });

  void it("offers HTTP/1.1 only by ALPN: a client offering h2 first gets http/1.1 (docs/adr/0016-http2.md)", async () => {
    const socket = tlsConnect({ host: "127.0.0.1", port: primary.port, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem, servername: "localhost", ALPNProtocols: ["h2", "http/1.1"] });
    try {
      await new Promise<void>((resolve, reject) => socket.once("secureConnect", resolve).once("error", reject));
      assert.equal(socket.alpnProtocol, "http/1.1");
    } finally {
      socket.destroy();
    }
  });

  void it("keeps --max-watches-per-user and /metrics for the server as a whole, not per worker", async () => {
    // A user of its own (with the rights to watch), so only this test's watches count.
    const as = { "impersonate-user": "watch-limited", "impersonate-group": "system:masters" };
    const openWatch = (agent: Agent) =>
      new Promise<{ status: number; body: string; localPort: number }>((resolve, reject) => {
        const r = request({ agent, host: "127.0.0.1", port: primary.port, path: `${cms}?watch=1`, headers: as }, (res) => {
          const localPort = res.socket.localPort ?? 0;
          if (res.statusCode === 200) return resolve({ status: 200, body: "", localPort });
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, localPort }));
        });
        r.on("error", reject);
        r.end();
      });
    const watchAgents = Array.from({ length: 5 }, () => connection());
    const opened = [];
    for (const agent of watchAgents) opened.push(await openWatch(agent));
    assert.deepEqual(opened.map((w) => w.status), [200, 200, 200, 200, 200]);
    const workersOf = new Set(opened.map((w) => primary.relay.workerOfClientPort(w.localPort)));
    assert.deepEqual([...workersOf].sort(), [0, 1], "the watches are spread over both workers");
    // A sixth is refused on either worker: the limit counts the user's watches on every worker.
    const refused = [await openWatch(connection()), await openWatch(connection())];
    assert.deepEqual(new Set(refused.map((w) => primary.relay.workerOfClientPort(w.localPort))), new Set([0, 1]));
    for (const r of refused) {
      assert.equal(r.status, 429, r.body);
      const status = JSON.parse(r.body) as { reason: string; message: string };
      assert.equal(status.reason, "TooManyRequests");
      assert.match(status.message, /user "watch-limited" has 5 watches open/);
    }
    // One ends (on whichever worker): the user may open one again.
    watchAgents[0]!.destroy();
    const again = connection();
    await eventually("a watch to be admitted after one ended", async () => {
      const w = await openWatch(again);
      return w.status === 200 ? true : undefined;
    });
    // A worker that exits takes its watches with it: they stop counting at once, and the user
    // opens watches up to the limit again.
    const victim = primary.relay.workerOfClientPort(opened[1]!.localPort)!;
    await primary.kill(victim);
    await primary.ready(victim);
    const reopened: number[] = [];
    for (let i = 0; i < 6 && reopened.at(-1) !== 429; i++) reopened.push((await openWatch(connection())).status);
    assert.equal(reopened[0], 200, "a watch after the worker's exit");
    assert.equal(reopened.at(-1), 429, "and up to the limit only");

    // Requests through connections of both workers; /metrics through either counts them all.
    const [c0, c1] = [connection(), connection()];
    const probe = `${cms}/metrics-probe`;
    const first = await send(c0, "GET", probe);
    const second = await send(c1, "GET", probe);
    assert.deepEqual([first.status, second.status], [404, 404]);
    assert.notEqual(primary.relay.workerOfClientPort(first.localPort), primary.relay.workerOfClientPort(second.localPort));
    for (let i = 0; i < 2; i++) await send(c0, "GET", probe);
    for (let i = 0; i < 3; i++) await send(c1, "GET", probe);
    const line = /^apiserver_request_total\{verb="GET",group="",resource="configmaps",subresource="",code="404"\} (\d+)$/m;
    const watching = /^apiserver_longrunning_requests\{verb="WATCH",group="",resource="configmaps"\} (\d+)$/m;
    for (const via of [c0, c1]) {
      const m = await send(via, "GET", "/metrics");
      assert.equal(m.status, 200);
      assert.equal(line.exec(m.body)?.[1], "7", "2 + 2 through worker 0's connection and 1 + 3 through worker 1's (and the 404s of no other test)");
      // The open watches of the user (5) and of the first test's watcher, on both workers together.
      assert.ok(Number(watching.exec(m.body)?.[1]) >= 5, m.body.match(watching)?.[0]);
      // A metric of the process is there once, not once per worker.
      assert.equal(m.body.match(/^process_cpu_seconds_total /gm)?.length, 1);
      // The primary's SQLite syncs (docs/kubernetes-api.md#metrics): once, counting the writes above; none on etcd.
      const syncs = m.body.match(/^gardener_apiserver_sqlite_writes_per_fsync_count (\d+)$/gm) ?? [];
      if (storage === "etcd") assert.deepEqual(syncs, []);
      else {
        assert.equal(syncs.length, 1, m.body.match(/^gardener_apiserver_sqlite.*$/gm)?.join("\n"));
        assert.ok(Number(syncs[0]!.split(" ")[1]) > 0, syncs[0]);
      }
    }
  });
});
}

void describe("the gardener-apiserver binary with --workers 2 on SQLite", { timeout: 120_000 }, () => {
  void it("serves and exits 0 on SIGTERM, taking its workers with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gapi-workers-bin-"));
    const server = await startApiServerProcess({ storage: "sqlite", dataDir: join(dir, "data"), extraArgs: ["--workers", "2"] });
    try {
      const client = rawClient(server.kubeconfig, { maxSockets: 2 });
      const [a, b] = await Promise.all([client.request({ path: "/api/v1/namespaces" }), client.request({ path: "/api/v1/namespaces/default" })]);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      client.close();
      const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
      server.child.kill("SIGTERM");
      assert.equal(await exited, 0);
      // Nothing listens any more.
      await assert.rejects(rawClient(server.kubeconfig).request({ path: "/readyz", timeoutMs: 2000 }), /ECONNREFUSED/);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
