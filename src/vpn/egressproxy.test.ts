import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect as tlsConnect } from "node:tls";
import { connect as netConnect } from "node:net";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAuthority, type IssuedCertificate } from "../apiserver/certs/issue.ts";
import { EGRESS_CLIENT_CN, EgressProxy } from "./egressproxy.ts";
import { TargetPolicy } from "./egresstarget.ts";
import { TunnelSet } from "./tunnels.ts";
import { closedPort, echoServer } from "./testing.ts";

const OK = "HTTP/1.1 200 Connection established\r\n\r\n";

interface TlsTalk {
  received: () => string;
  closed: Promise<{ data: string; secure: boolean }>;
  until: (text: string) => Promise<void>;
  write: (s: string) => void;
  end: () => void;
  destroy: () => void;
}

function talk(port: number, ca: string, client?: IssuedCertificate): TlsTalk {
  const s = tlsConnect({ host: "127.0.0.1", port, ca, cert: client?.certPem, key: client?.keyPem, servername: "vpn-seed-server" });
  let data = "";
  let secure = false;
  const waiters: { text: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  s.on("secureConnect", () => (secure = true));
  s.on("data", (c: Buffer) => {
    data += c.toString();
    for (const w of [...waiters]) {
      if (!data.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  s.on("error", () => undefined);
  s.on("end", () => s.end());
  const closed = new Promise<{ data: string; secure: boolean }>((resolve) =>
    s.on("close", () => {
      for (const w of waiters.splice(0)) w.reject(new Error(`closed before ${w.text}: ${data}`));
      resolve({ data, secure });
    }),
  );
  return {
    received: () => data,
    closed,
    until: (text) => (data.includes(text) ? Promise.resolve() : new Promise((resolve, reject) => waiters.push({ text, resolve, reject }))),
    write: (t) => s.write(t),
    end: () => s.end(),
    destroy: () => s.destroy(),
  };
}

async function ask(port: number, ca: string, client: IssuedCertificate, raw: string): Promise<string> {
  const t = talk(port, ca, client);
  t.write(raw);
  return (await t.closed).data;
}

void describe("the egress proxy's target policy", () => {
  const policy = new TargetPolicy(["10.250.0.0/16", "100.96.0.0/11", "100.64.0.0/13", "127.0.0.0/8"]);
  void it("admits IPv4 targets in the shoot ranges and refuses the rest with a reason", () => {
    assert.deepEqual(policy.decide("10.250.3.4:10250"), { ok: true, host: "10.250.3.4", port: 10250 });
    assert.deepEqual(policy.decide("100.64.0.10:443"), { ok: true, host: "100.64.0.10", port: 443 });
    assert.deepEqual(policy.decide("10.1.0.5:443"), { ok: false, code: 403, message: "target 10.1.0.5:443 is outside the shoot networks" });
    assert.equal(policy.decide("127.0.0.1:80").ok, false, "loopback is denied even inside a shoot range");
    for (const t of ["kubernetes.default:443", "[::1]:443", "::1:443"]) assert.equal((policy.decide(t) as { code: number }).code, 403, t);
    for (const t of ["10.250.3.4", "10.250.3.4:0", "10.250.3.4:65536", "10.250.3.4:-1", ":443", "10.250.3.4:1x"]) assert.equal((policy.decide(t) as { code: number }).code, 400, t);
  });
});

void describe("the egress proxy", () => {
  let ca: CertificateAuthority;
  let client: IssuedCertificate;
  let proxy: EgressProxy;
  let port: number;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  const sources: string[] = [];
  const tunnels = new TunnelSet([
    { server: "vpn-seed-server-0", address: "127.0.0.1" },
    { server: "vpn-seed-server-1", address: "127.0.0.2" },
  ]);

  before(async () => {
    ca = await createCertificateAuthority({ commonName: "vpn" });
    const serving = await issueServingCertificate(ca, { hosts: ["vpn-seed-server", "127.0.0.1"], commonName: "vpn-seed-server" });
    client = await issueClientCertificate(ca, { commonName: EGRESS_CLIENT_CN });
    echo = await echoServer();
    echo.server.on("connection", (s) => sources.push(s.remoteAddress ?? ""));
    // Loopback stands in for the shoot's node network here; the default deny list would refuse it.
    proxy = new EgressProxy({ credentials: { certPem: serving.certPem, keyPem: serving.keyPem, caBundlePem: ca.certPem }, policy: new TargetPolicy(["127.0.0.0/8"], []), tunnels });
    port = (await proxy.listen(0, "127.0.0.1")).port;
  });
  after(async () => {
    await proxy.close();
    for (const s of echo.sockets) s.destroy();
    echo.server.close();
  });

  void it("answers 503 while no tunnel is up", async () => {
    const answer = await ask(port, ca.certPem, client, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 503 Service Unavailable\r\n[^]*\r\n\r\nno tunnel to the shoot is up\n$/);
  });

  void it("connects a target in the shoot ranges from the selected tunnel's address, with half-close", async () => {
    tunnels.setUp("vpn-seed-server-0", true);
    tunnels.setUp("vpn-seed-server-1", true);
    const t = talk(port, ca.certPem, client);
    t.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nhello`);
    await t.until(OK + "hello");
    t.end();
    assert.equal((await t.closed).data, OK + "hellobye");
    assert.equal(sources.at(-1), "127.0.0.1");
  });

  void it("refuses other methods (405), malformed requests (400) and targets outside the ranges (403)", async () => {
    const cases: [string, RegExp][] = [
      ["GET / HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 405 Method Not Allowed\r\n/],
      ["CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 400 Bad Request\r\n/],
      ["CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 400 Bad Request\r\n[^]*port 0 is outside 1-65535/],
      ["CONNECT 127.0.0.1:70000 HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 400 /],
      [`CONNECT 127.0.0.1:1 HTTP/1.1\r\nX: ${"a".repeat(9000)}\r\n\r\n`, /^HTTP\/1\.1 400 /],
      ["CONNECT localhost:443 HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 403 Forbidden\r\n/],
      ["CONNECT [::1]:443 HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 403 Forbidden\r\n[^]*IPv6/],
      ["CONNECT 10.1.0.5:443 HTTP/1.1\r\n\r\n", /target 10\.1\.0\.5:443 is outside the shoot networks\n$/],
    ];
    for (const [raw, want] of cases) assert.match(await ask(port, ca.certPem, client, raw), want, raw.slice(0, 40));
  });

  void it("answers 502 when the target refuses", async () => {
    const answer = await ask(port, ca.certPem, client, `CONNECT 127.0.0.1:${await closedPort()} HTTP/1.1\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 502 Bad Gateway\r\n[^]*ECONNREFUSED/);
  });

  void it("refuses a client without the right certificate before any HTTP is spoken", async () => {
    const other = await createCertificateAuthority({ commonName: "vpn" });
    const expiredAt = new Date(Date.now() - 3 * 24 * 3600_000);
    const wrong: [string, IssuedCertificate | undefined][] = [
      ["no certificate", undefined],
      ["another shoot's CA", await issueClientCertificate(other, { commonName: EGRESS_CLIENT_CN })],
      ["another CN", await issueClientCertificate(ca, { commonName: "vpn-shoot-client" })],
      ["serverAuth only", await issueServingCertificate(ca, { hosts: ["x"], commonName: EGRESS_CLIENT_CN })],
      ["expired", await issueClientCertificate(ca, { commonName: EGRESS_CLIENT_CN, days: 1, now: expiredAt })],
    ];
    const before = Number((await proxy.registry.getSingleMetric("vpn_egress_tls_failures_total")!.get()).values[0]?.value ?? 0);
    for (const [why, cert] of wrong) {
      const t = talk(port, ca.certPem, cert);
      t.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
      const { data } = await t.closed;
      assert.equal(data, "", why);
    }
    const after = Number((await proxy.registry.getSingleMetric("vpn_egress_tls_failures_total")!.get()).values[0]?.value ?? 0);
    assert.equal(after - before, wrong.length);
  });

  void it("closes the streams of a tunnel that goes down and uses the other one from then on", async () => {
    const t = talk(port, ca.certPem, client);
    t.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
    await t.until(OK);
    tunnels.setUp("vpn-seed-server-0", false);
    assert.equal((await t.closed).data, OK);
    const u = talk(port, ca.certPem, client);
    u.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\nx`);
    await u.until(OK + "x");
    assert.equal(sources.at(-1), "127.0.0.2");
    tunnels.setUp("vpn-seed-server-0", true);
    const v = talk(port, ca.certPem, client);
    v.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\ny`);
    await v.until(OK + "y");
    assert.equal(sources.at(-1), "127.0.0.2", "no flapping back to a recovered tunnel");
    u.destroy();
    v.destroy();
    assert.match(await proxy.registry.getSingleMetricAsString("vpn_egress_failovers_total"), /vpn_egress_failovers_total 1/);
  });

  void it("reloads its credentials without dropping open streams", async () => {
    const open = talk(port, ca.certPem, client);
    open.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
    await open.until(OK);
    const ca2 = await createCertificateAuthority({ commonName: "vpn" });
    const serving2 = await issueServingCertificate(ca2, { hosts: ["vpn-seed-server", "127.0.0.1"], commonName: "vpn-seed-server" });
    const client2 = await issueClientCertificate(ca2, { commonName: EGRESS_CLIENT_CN });
    proxy.reload({ certPem: serving2.certPem, keyPem: serving2.keyPem, caBundlePem: ca2.certPem });
    assert.match(await ask(port, ca2.certPem, client2, "GET / HTTP/1.1\r\n\r\n"), /^HTTP\/1\.1 405 /);
    const oldClient = talk(port, ca2.certPem, client);
    oldClient.write("GET / HTTP/1.1\r\n\r\n");
    assert.equal((await oldClient.closed).data, "", "the old CA's client is refused");
    open.write("still");
    await open.until("still");
    open.destroy();
  });

  void it("answers 503 beyond its stream limit", async () => {
    const small = new EgressProxy({ credentials: { ...(await serving(ca)), caBundlePem: ca.certPem }, policy: new TargetPolicy(["127.0.0.0/8"], []), tunnels, maxStreams: 1 });
    const p = (await small.listen(0, "127.0.0.1")).port;
    const first = talk(p, ca.certPem, client);
    first.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
    await first.until(OK);
    assert.match(await ask(p, ca.certPem, client, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 503 [^]*too many concurrent streams/);
    first.destroy();
    await small.close();
  });

  void it("closes at once with a connection still in its TLS handshake (not after the handshake timeout)", async () => {
    const other = new EgressProxy({ credentials: { ...(await serving(ca)), caBundlePem: ca.certPem }, policy: new TargetPolicy(["127.0.0.0/8"], []), tunnels });
    const p = (await other.listen(0, "127.0.0.1")).port;
    // A TCP connection that never starts its handshake.
    const raw = netConnect(p, "127.0.0.1");
    const closed = new Promise<void>((resolve) => raw.once("close", () => resolve()));
    raw.on("error", () => undefined);
    await new Promise<void>((resolve) => raw.once("connect", () => resolve()));
    const start = performance.now();
    await other.close();
    const ms = performance.now() - start;
    await closed;
    // The handshake timeout is 10 s; close() used to wait for it.
    assert.ok(ms < 5000, `close() took ${ms.toFixed(0)} ms`);
  });
});

async function serving(ca: CertificateAuthority) {
  const s = await issueServingCertificate(ca, { hosts: ["vpn-seed-server", "127.0.0.1"], commonName: "vpn-seed-server" });
  return { certPem: s.certPem, keyPem: s.keyPem };
}
