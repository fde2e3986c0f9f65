// The kubelet server over a fake runtime: who may connect, the channel protocol of exec and attach
// (readiness frame, output channels, stdin, v5 CLOSE, resize, exit status), SPDY and protocol
// refusals, and container logs with their options and 400s.
import assert from "node:assert/strict";
import { request } from "node:https";
import { PassThrough, Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../apiserver/certs/issue.ts";
import { V4_PROTOCOL, V5_PROTOCOL, decodeFrame, decodeStatus, encodeClose, encodeFrame, encodeResize } from "../../../apimachinery/remotecommand/protocol.ts";
import type { ContainerStream } from "../../../host/containers.ts";
import type { ContainerStatus, Pod, PodRuntimeStatus } from "../runtime/types.ts";
import { startKubeletServer, type KubeletServer } from "./server.ts";
import { CLIENT_SETTLE_MS } from "./streams.ts";
import { pollFor } from "../../../utils/poll.ts";

interface FakeExec {
  command: string[];
  stdin: string;
  stdinEnded: boolean;
  resizes: [number, number][];
  size?: { width: number; height: number } | undefined;
  finish(code: number): void;
  closed: boolean;
}

const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u1" }, spec: { containers: [{ name: "c", image: "busybox" }, { name: "waiting", image: "busybox" }] } };
const running: ContainerStatus = { name: "c", state: { running: { startedAt: "2024-01-01T00:00:00Z" } }, lastState: {}, ready: true, started: true, restartCount: 0, image: "busybox", imageID: "toolbox://shell", containerID: "toolbox://u1/c/0" };
const waiting: ContainerStatus = { ...running, name: "waiting", state: { waiting: { reason: "ContainerCreating" } }, ready: false, started: false, containerID: undefined };

describe("kubelet server", () => {
  let server: KubeletServer;
  let tls: { ca: string; cert: string; key: string };
  let other: { cert: string; key: string };
  const execs: FakeExec[] = [];
  const logCalls: unknown[] = [];

  before(async () => {
    const ca = await createCertificateAuthority();
    const serving = await issueServingCertificate(ca, { hosts: ["127.0.0.1"], commonName: "system:node:n1" });
    const client = await issueClientCertificate(ca, { commonName: "system:kube-apiserver:kubelet" });
    const admin = await issueClientCertificate(ca, { commonName: "system:admin", organizations: ["system:masters"] });
    tls = { ca: ca.certPem, cert: client.certPem, key: client.keyPem };
    other = { cert: admin.certPem, key: admin.keyPem };
    const runtime = {
      checkExec: (_p: Pod, container: string): Promise<void> =>
        container === "waiting" ? Promise.reject(new Error("container waiting is not running")) : Promise.resolve(),
      exec: (_p: Pod, container: string, command: string[], o: { tty?: boolean; stdin?: boolean; size?: { width: number; height: number } }): Promise<ContainerStream> => {
        if (container === "waiting") return Promise.reject(new Error("container waiting is not running"));
        const stdout = new PassThrough();
        const stderr = new PassThrough();
        const stdin = new PassThrough();
        let resolveExit!: (n: number) => void;
        const exec: FakeExec = { command, size: o.size, stdin: "", stdinEnded: false, resizes: [], closed: false, finish: (code) => (stdout.end(), stderr.end(), resolveExit(code)) };
        stdin.on("data", (d: Buffer) => (exec.stdin += String(d)));
        stdin.on("end", () => (exec.stdinEnded = true));
        execs.push(exec);
        setImmediate(() => {
          stdout.write("out\n");
          if (!o.tty) stderr.write("err\n");
        });
        return Promise.resolve({
          stdin: o.stdin ? stdin : null,
          stdout,
          stderr: o.tty ? null : stderr,
          resize: (w: number, h: number) => exec.resizes.push([w, h]),
          exit: new Promise<number>((r) => (resolveExit = r)),
          close: () => (exec.closed = true),
        });
      },
      attach: () => Promise.reject(new Error("not used")),
      logs: (_p: Pod, container: string, o: unknown) => {
        logCalls.push({ container, ...(o as object) });
        return Promise.resolve(Readable.from(["line 1\n", "line 2\n", "line 3\n"]));
      },
      status: (): Promise<PodRuntimeStatus> => Promise.resolve({ uid: "u1", phase: "Running", initContainerStatuses: [], containerStatuses: [running, waiting] }),
    };
    server = await startKubeletServer({
      kubelet: { podByName: (ns, name) => (ns === "ns" && name === "p" ? pod : undefined), runtime },
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      clientCAPem: ca.certPem,
      address: "127.0.0.1",
      port: 0,
    });
  });
  after(() => server.close());

  const url = (path: string) => `https://127.0.0.1:${server.port}${path}`;
  function get(path: string, creds: { cert?: string; key?: string } = tls, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(url(path), { ca: tls.ca, cert: creds.cert, key: creds.key, headers }, (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += String(d)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  }
  function open(path: string, protocols: string[] = [V5_PROTOCOL], creds: { cert?: string; key?: string } = tls) {
    const ws = new WebSocket(url(path).replace("https", "wss"), protocols, { ca: tls.ca, cert: creds.cert, key: creds.key });
    const frames: { channel: number; text: string }[] = [];
    ws.on("message", (d: Buffer) => {
      const f = decodeFrame(d);
      frames.push({ channel: f.channel, text: f.payload.toString() });
    });
    const closed = new Promise<number>((r) => ws.on("close", (code) => r(code)));
    const refused = new Promise<{ status: number; body: string }>((r) =>
      ws.on("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += String(d)));
        res.on("end", () => r({ status: res.statusCode ?? 0, body }));
      }),
    );
    ws.on("error", () => undefined);
    const opened = new Promise<void>((r) => ws.on("open", () => r()));
    return { ws, frames, closed, refused, opened };
  }
  const until = (cond: () => boolean): Promise<void> => pollFor("the condition", cond, { intervalMs: 10 });

  test("a client without a certificate gets 401, another identity 403, before the path is looked at", async () => {
    assert.equal((await get("/containerLogs/ns/p/c", {})).status, 401);
    const forbidden = await get("/containerLogs/ns/p/c", other);
    assert.equal(forbidden.status, 403);
    assert.match(JSON.parse(forbidden.body).message, /user=system:admin/);
    assert.equal((await get("/no/such/path", other)).status, 403);
    assert.equal((await open("/exec/ns/p/c?command=true&stdout=1", [V5_PROTOCOL], {}).refused).status, 401);
    assert.equal((await open("/exec/ns/p/c?command=true&stdout=1", [V5_PROTOCOL], other).refused).status, 403);
    assert.equal(execs.length, 0, "nothing ran");
  });

  test("exec (v5): readiness frame, stdout and stderr, stdin until CLOSE, resize, exit status 3, close 1000", async () => {
    const s = open("/exec/ns/p/c?command=sh&command=-c&command=cat&stdin=1&stdout=1&stderr=1");
    await s.opened;
    assert.equal(s.ws.protocol, V5_PROTOCOL);
    await until(() => s.frames.length >= 3);
    assert.deepEqual(s.frames[0], { channel: 1, text: "" }, "empty frame on stdout first");
    assert.deepEqual(s.frames.slice(1, 3).sort((a, b) => a.channel - b.channel), [{ channel: 1, text: "out\n" }, { channel: 2, text: "err\n" }]);
    const e = execs.at(-1)!;
    assert.deepEqual(e.command, ["sh", "-c", "cat"]);
    s.ws.send(encodeFrame(0, "typed"));
    s.ws.send(encodeResize({ width: 100, height: 40 }));
    s.ws.send(encodeClose(0));
    await until(() => e.stdinEnded);
    assert.equal(e.stdin, "typed");
    assert.deepEqual(e.resizes, [[100, 40]]);
    e.finish(3);
    assert.equal(await s.closed, 1000);
    const status = s.frames.at(-1)!;
    assert.equal(status.channel, 3);
    assert.equal(decodeStatus(Buffer.from(status.text)), 3);
    assert.equal(JSON.parse(status.text).reason, "NonZeroExitCode");
  });

  test("exec with a terminal: the command starts with the client's first terminal size; what was typed before arrives", async () => {
    const before = execs.length;
    const s = open("/exec/ns/p/c?command=sh&stdin=1&stdout=1&tty=1");
    await s.opened;
    await until(() => s.frames.length >= 1);
    assert.deepEqual(s.frames[0], { channel: 1, text: "" }, "ready before the command starts");
    assert.equal(execs.length, before, "nothing runs before the terminal's size is known");
    s.ws.send(encodeFrame(0, "early"));
    s.ws.send(encodeResize({ width: 120, height: 33 }));
    await until(() => execs.length === before + 1);
    const e = execs.at(-1)!;
    assert.deepEqual(e.size, { width: 120, height: 33 });
    await until(() => e.stdin === "early");
    e.finish(0);
    assert.equal(await s.closed, 1000);
    assert.equal(s.frames.filter((f) => f.channel === 1 && f.text === "").length, 1, "one ready frame");

    const silent = open("/exec/ns/p/c?command=sh&stdout=1&tty=1");
    await silent.opened;
    await until(() => execs.length === before + 2);
    assert.equal(execs.at(-1)!.size, undefined, "a client that sends no size still gets its command (after the wait)");
    execs.at(-1)!.finish(0);
    assert.equal(await silent.closed, 1000);
  });

  test("exec (v4): negotiated when only v4 is offered; CLOSE is not part of it; Success on 0; a client going away kills the command", async () => {
    const s = open("/exec/ns/p/c?command=true&stdin=true&stdout=true", [V4_PROTOCOL, "channel.k8s.io"]);
    await s.opened;
    assert.equal(s.ws.protocol, V4_PROTOCOL);
    const e = execs.at(-1)!;
    s.ws.send(encodeClose(0));
    s.ws.send(encodeFrame(0, "still open"));
    await until(() => e.stdin === "still open");
    assert.equal(e.stdinEnded, false);
    e.finish(0);
    assert.equal(await s.closed, 1000);
    assert.deepEqual(s.frames.at(-1), { channel: 3, text: '{"metadata":{},"status":"Success"}' });
    const gone = open("/exec/ns/p/c?command=sleep&stdout=1");
    await gone.opened;
    const g = execs.at(-1)!;
    gone.ws.close();
    await until(() => g.closed);
  });

  test("a command that ends at once: a client that sends nothing gets its output and status only after the settle time", async () => {
    // kubectl 1.30-1.33 read before they create their streams; what came first was dropped.
    const before = execs.length;
    const t0 = performance.now();
    const s = open("/exec/ns/p/c?command=true&stdout=1&stderr=1");
    let statusAt = 0;
    s.ws.on("message", (d: Buffer) => (d[0] === 3 ? (statusAt = performance.now()) : undefined));
    await until(() => execs.length === before + 1);
    execs.at(-1)!.finish(0);
    assert.equal(await s.closed, 1000);
    assert.ok(statusAt - t0 >= CLIENT_SETTLE_MS, `status ${(statusAt - t0).toFixed(1)} ms after the request`);
    assert.deepEqual(s.frames.map((f) => f.channel).sort(), [1, 1, 2, 3], "the ready frame, the output, the status: nothing dropped");
    assert.deepEqual(s.frames[0], { channel: 1, text: "" });
  });

  test("the ready frame waits for the client's first frame, or the settle time for a client that sends nothing, with and without a terminal", async () => {
    // kubectl 1.30-1.33 drop a frame that comes before their streams exist and print "Unknown stream id 1".
    for (const path of ["/exec/ns/p/c?command=cat&stdin=1&stdout=1", "/exec/ns/p/c?command=sh&stdin=1&stdout=1&tty=1"]) {
      const t0 = performance.now();
      const silent = open(path);
      let readyAt = 0;
      silent.ws.once("message", () => (readyAt = performance.now()));
      await until(() => silent.frames.length >= 1);
      assert.deepEqual(silent.frames[0], { channel: 1, text: "" }, path);
      assert.ok(readyAt - t0 >= CLIENT_SETTLE_MS, `${path}: ready ${(readyAt - t0).toFixed(1)} ms after the request`);
      silent.ws.close();
      await silent.closed;

      const talking = open(path);
      await talking.opened;
      talking.ws.send(encodeResize({ width: 80, height: 24 }));
      await until(() => talking.frames.length >= 1);
      assert.deepEqual(talking.frames[0], { channel: 1, text: "" }, `${path}: ready after the client's first frame`);
      talking.ws.close();
      await talking.closed;
    }
  });

  test("refusals before anything runs: SPDY, no common protocol, no stream, no command, unknown pod or container, a container not running", async () => {
    const before = execs.length;
    const spdy = await get("/exec/ns/p/c?command=true&stdout=1", tls, { Connection: "Upgrade", Upgrade: "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io" });
    assert.equal(spdy.status, 400);
    assert.match(JSON.parse(spdy.body).message, /SPDY is not supported/);
    const spdyWaiting = await get("/exec/ns/p/waiting?command=true&stdout=1", tls, { Connection: "Upgrade", Upgrade: "SPDY/3.1" });
    assert.match(JSON.parse(spdyWaiting.body).message, /container waiting is not running/, "a SPDY fallback still shows why the WebSocket attempt failed");
    const base64 = await open("/exec/ns/p/c?command=true&stdout=1", ["base64.channel.k8s.io"]).refused;
    assert.equal(base64.status, 400);
    assert.match(JSON.parse(base64.body).message, /requested protocol\(s\) are not supported/);
    assert.match((await open("/exec/ns/p/c?command=true").refused).body, /at least 1 of stdin, stdout, stderr/);
    assert.match((await open("/exec/ns/p/c?stdout=1").refused).body, /at least one command/);
    assert.equal((await open("/exec/ns/nope/c?command=true&stdout=1").refused).status, 404);
    assert.equal((await open("/exec/ns/p/nope?command=true&stdout=1").refused).status, 404);
    const notRunning = await open("/exec/ns/p/waiting?command=true&stdout=1").refused;
    assert.equal(notRunning.status, 400);
    assert.match(notRunning.body, /not running/);
    assert.equal(execs.length, before);
  });

  test("container logs: options reach the runtime, limitBytes cuts, waiting and unknown containers are refused as the kubelet does", async () => {
    const r = await get("/containerLogs/ns/p/c?follow=true&tailLines=2&timestamps=true&sinceSeconds=10&limitBytes=10");
    assert.equal(r.status, 200);
    assert.equal(r.body, "line 1\nlin");
    const call = logCalls.at(-1) as Record<string, unknown>;
    assert.equal(call.container, "c");
    assert.equal(call.follow, true);
    assert.equal(call.tail, 2);
    assert.equal(call.timestamps, true);
    assert.ok(Math.abs((call.sinceMs as number) - (Date.now() - 10_000)) < 5000);
    const w = await get("/containerLogs/ns/p/waiting");
    assert.equal(w.status, 400);
    assert.equal(JSON.parse(w.body).message, 'container "waiting" in pod "p" is waiting to start: ContainerCreating');
    const prev = await get("/containerLogs/ns/p/c?previous=true");
    assert.equal(JSON.parse(prev.body).message, 'previous terminated container "c" in pod "p" not found');
    assert.equal((await get("/containerLogs/ns/p/nope")).status, 404);
    assert.equal((await get("/containerLogs/ns/p/c?tailLines=x")).status, 400);
    assert.equal((await get("/containerLogs/ns/p/c?limitBytes=0")).status, 400);
  });
});
