// Watchers that never read against the real server over HTTPS: many viewers (RBAC "view" in one
// namespace, bearer tokens) open watches and never read while a large object is written again and
// again. Their backlogs pass the watch bounds (shrunk with flags so the test is fast) many times
// over: the server ends those watches (the clients see their streams cut short), keeps its RSS
// bounded, refuses watches beyond the per-user count with 429, and serves a bystander within 1 s
// throughout. Plus: timeoutSeconds of any size keeps the watch open (no timer overflow).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import { type ApiServerProcess, startApiServerProcess } from "../../support/apiserver.ts";
import { eventually, type RawClient, rawClient } from "../../support/http.ts";
import { writeTokenAuthFile, writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { assertServedThroughout, startBystander } from "../../support/liveness.ts";

const NS = "watched";
const USERS = 4;
const WATCHES_PER_USER = 25;
const WRITES = 24;
const OBJECT_BYTES = 512 * 1024;
const LIMITS = { perWatch: 2 * 1024 * 1024, perUser: 4 * 1024 * 1024, total: 16 * 1024 * 1024 };
/** The server's RSS may grow by this much during the attack (unbounded, it grows by gigabytes). */
const RSS_GROWTH_BOUND = 300 * 1024 * 1024;

/** A watch over a raw TLS connection that sends its request and then never reads. */
interface StalledWatch {
  socket: TLSSocket;
  /** Resumes reading; resolves with what arrived once the server closed the connection. */
  drain(timeoutMs: number): Promise<{ text: string; closed: boolean }>;
}

function stalledWatch(server: ApiServerProcess, token: string, path: string): Promise<StalledWatch> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n\r\n`);
      socket.pause();
      resolve({
        socket,
        drain: (timeoutMs) =>
          new Promise((done) => {
            const chunks: Buffer[] = [];
            const finish = (closed: boolean) => {
              clearTimeout(timer);
              socket.destroy();
              done({ text: Buffer.concat(chunks).toString("latin1"), closed });
            };
            const timer = setTimeout(() => finish(false), timeoutMs);
            socket.on("data", (c: Buffer) => chunks.push(c));
            socket.once("close", () => finish(true));
            socket.resume();
          }),
      });
    });
    socket.once("error", reject);
  });
}

/** A watch that reads everything: resolves with the event types and the last object's value length once `count` events arrived. */
function readingWatch(server: ApiServerProcess, token: string, path: string, count: number): Promise<{ types: string[]; lastLength: number }> {
  return new Promise((resolve, reject) => {
    const types: string[] = [];
    let lastLength = 0;
    const req = request({ host: "127.0.0.1", port: server.port, ca: server.caPem, path, headers: { authorization: `Bearer ${token}`, accept: "application/json" } }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const ev = JSON.parse(buf.slice(0, nl)) as { type: string; object: { data?: { v?: string } } };
          buf = buf.slice(nl + 1);
          types.push(ev.type);
          lastLength = ev.object.data?.v?.length ?? 0;
          if (types.length === count) {
            req.destroy();
            resolve({ types, lastLength });
          }
        }
      });
      res.on("close", () => reject(new Error(`the reading watch ended after ${types.length} events: ${types.join(",")}`)));
    });
    req.on("error", (e) => reject(e));
    req.end();
  });
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

async function longRunningWatches(admin: RawClient): Promise<number> {
  const text = (await admin.request({ path: "/metrics" })).body;
  const line = text.split("\n").find((l) => l.startsWith("apiserver_longrunning_requests{") && l.includes('resource="configmaps"'));
  return line ? Number(line.split(" ").pop()) : 0;
}

const tokenOf = (i: number) => `viewer-token-${i}`;

void describe("watchers that never read", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let admin: RawClient;
  const work = mkdtempSync(join(tmpdir(), "watch-hardening-"));

  before(async () => {
    const tokens = join(work, "tokens.csv");
    writeTokenAuthFile(
      tokens,
      Array.from({ length: USERS + 1 }, (_, i) => ({ token: tokenOf(i), user: `viewer-${i}`, uid: `u${i}`, groups: ["viewers"] })),
    );
    server = await startApiServerProcess({
      storage: "sqlite",
      tokenAuthFile: tokens,
      extraArgs: [
        "--log-level", "warn",
        "--watch-buffer-bytes", String(LIMITS.perWatch),
        "--watch-user-buffer-bytes", String(LIMITS.perUser),
        "--watch-total-buffer-bytes", String(LIMITS.total),
        "--max-watches-per-user", String(WATCHES_PER_USER),
      ],
    });
    admin = rawClient(server.kubeconfig);
    const post = async (path: string, body: unknown) => {
      const r = await admin.request({ method: "POST", path, body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      assert.equal(r.status, 201, r.body);
    };
    await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "viewers" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "viewers" }],
    });
    await post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data: { v: "0" } });
  });
  after(async () => {
    admin?.close();
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  void it("are ended, not the server: bounded RSS, streams cut short, others served within 1 s, 429 beyond the per-user count", async () => {
    const watchPath = `/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=3600`;
    const stalled: StalledWatch[] = [];
    const bystander = startBystander(server.kubeconfig);
    const pid = server.child.pid as number;
    const rssBefore = rssBytes(pid);
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssBytes(pid))), 50);
    let reader: ReturnType<typeof readingWatch> | undefined;
    try {
      for (let u = 0; u < USERS; u++) {
        for (let i = 0; i < WATCHES_PER_USER; i++) stalled.push(await stalledWatch(server, tokenOf(u), watchPath));
      }
      await eventually("all watches open", async () => ((await longRunningWatches(admin)) >= USERS * WATCHES_PER_USER ? true : undefined));

      // One more watch of a user at the count: a clear 429.
      const viewer0 = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "viewer0.kubeconfig"), "viewer-0", tokenOf(0)));
      const refused = await viewer0.request({ path: watchPath });
      viewer0.close();
      assert.equal(refused.status, 429, refused.body);
      const st = refused.json<{ kind: string; reason: string; code: number }>();
      assert.deepEqual([st.kind, st.reason, st.code], ["Status", "TooManyRequests", 429]);

      // A watcher that reads keeps its stream and gets every change.
      reader = readingWatch(server, tokenOf(USERS), `/api/v1/namespaces/${NS}/configmaps?watch=true&fieldSelector=metadata.name%3Dbig`, WRITES + 1);
      await eventually("the reader's watch open", async () => ((await longRunningWatches(admin)) > USERS * WATCHES_PER_USER ? true : undefined));

      let rv = "";
      for (let n = 1; n <= WRITES; n++) {
        const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", ...(rv ? { resourceVersion: rv } : {}) }, data: { v: String(n).repeat(OBJECT_BYTES / String(n).length) } };
        const r = await admin.request({ method: "PUT", path: `/api/v1/namespaces/${NS}/configmaps/big`, body: JSON.stringify(body), headers: { "content-type": "application/json" } });
        assert.equal(r.status, 200, r.body.slice(0, 300));
        rv = r.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      }
      // The server ended the stalled watches (the reader's stays).
      await eventually("the stalled watches to be ended", async () => ((await longRunningWatches(admin)) <= 1 ? true : undefined), 30_000, 200);
    } finally {
      clearInterval(sampler);
      assertServedThroughout(await bystander.stop());
    }
    const grown = rssMax - rssBefore;
    assert.ok(grown < RSS_GROWTH_BOUND, `RSS grew by ${Math.round(grown / 2 ** 20)} MiB (from ${Math.round(rssBefore / 2 ** 20)} MiB)`);

    // Each stalled client, reading at last, finds its stream cut short: no end of the chunked
    // body, and far fewer than the written changes.
    const WRITE_BYTES = WRITES * OBJECT_BYTES;
    const drained = await Promise.all(stalled.map((w) => w.drain(10_000)));
    for (const { text, closed } of drained) {
      assert.ok(closed, "the server closed the connection");
      assert.ok(!text.endsWith("0\r\n\r\n"), "the stream was cut, not ended normally");
      assert.ok(text.length < WRITE_BYTES / 2, `got ${text.length} bytes of ${WRITE_BYTES}`);
    }

    const got = await reader;
    assert.ok(got);
    assert.deepEqual(got.types, ["ADDED", ...Array<string>(WRITES).fill("MODIFIED")]);
    assert.equal(got.lastLength, OBJECT_BYTES);
  });

  void it("timeoutSeconds of any size keeps the watch open (clamped, no timer overflow)", async () => {
    const viewer = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "viewer1.kubeconfig"), "viewer-1", tokenOf(1)));
    const stalled: StalledWatch[] = [];
    try {
      for (const t of ["2147484", "2147483648", "9223372036854775807"]) {
        stalled.push(await stalledWatch(server, tokenOf(1), `/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=${t}`));
      }
      // The old server ended such watches at once (an overflowed timer fires after 1 ms). A watch
      // of 1 s opened after them ending is the proof that their timers had their chance to fire.
      const reference = await viewer.request({ path: `/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=1`, timeoutMs: 60_000 });
      assert.equal(reference.status, 200, reference.body);
      for (const w of stalled) {
        const { text, closed } = await w.drain(300);
        assert.match(text, /^HTTP\/1\.1 200 /);
        // Ended, the chunked body would close with its last chunk (the connection itself stays open).
        assert.ok(!closed && !text.endsWith("\r\n0\r\n\r\n"), `the watch ended at once: ${JSON.stringify(text.slice(-300))}`);
      }
      const bad = await viewer.request({ path: `/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=99999999999999999999` });
      assert.equal(bad.status, 400, bad.body);
      assert.equal(bad.json<{ reason: string }>().reason, "BadRequest");
    } finally {
      for (const w of stalled) w.socket.destroy();
      viewer.close();
    }
  });
});
