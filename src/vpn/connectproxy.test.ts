import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "../utils/clock.ts";
import { pollFor } from "../utils/poll.ts";
import { ConnectProxy, parseReversedVpn } from "./connectproxy.ts";
import { ServerDirectory } from "./servers.ts";
import { closedPort, echoServer, exchange, open } from "./testing.ts";

const NS = "shoot--foo--bar";
const HEADER = `outbound|1194||vpn-seed-server.${NS}.svc.cluster.local`;
const connectWith = (...headers: string[]) => `CONNECT api.bar.foo.local:1194 HTTP/1.0\r\n${headers.map((h) => h + "\r\n").join("")}Host: api\r\n\r\n`;
const endpoints = (namespace: string, name: string, ip?: string, port = 1194) => ({
  metadata: { namespace, name, labels: { app: "vpn-seed-server" } },
  subsets: [{ addresses: ip ? [{ ip }] : [], ports: [{ port }] }],
});
const FORBIDDEN = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
const BAD_REQUEST = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
const UNAVAILABLE = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
const OK = "HTTP/1.1 200 Connection established\r\n\r\n";

void describe("the Reversed-VPN header pattern", () => {
  void it("accepts the plain and HA names and nothing around them", () => {
    assert.deepEqual(parseReversedVpn(HEADER), { name: "vpn-seed-server", namespace: NS });
    assert.deepEqual(parseReversedVpn(`outbound|1194||vpn-seed-server-1.${NS}.svc.cluster.local`), { name: "vpn-seed-server-1", namespace: NS });
    for (const bad of [
      `outbound|1194||vpn-seed-server-11.${NS}.svc.cluster.local`,
      `outbound|1194||vpn-seed-server-5.${NS}.svc.cluster.local`,
      `${HEADER}.bar`,
      `x${HEADER}`,
      `outbound|443||vpn-seed-server.${NS}.svc.cluster.local`,
      `outbound|1194||kube-apiserver.${NS}.svc.cluster.local`,
      `outbound|1194||vpn-seed-server.-bad.svc.cluster.local`,
      `outbound|1194||vpn-seed-server.${"a".repeat(64)}.svc.cluster.local`,
    ]) {
      assert.equal(parseReversedVpn(bad), undefined, bad);
    }
  });
});

void describe("the seed CONNECT proxy", () => {
  const directory = new ServerDirectory();
  let proxy: ConnectProxy;
  let port: number;
  let echo: Awaited<ReturnType<typeof echoServer>>;

  before(async () => {
    echo = await echoServer();
    directory.apply(endpoints(NS, "vpn-seed-server", "127.0.0.1"));
    directory.apply(endpoints("shoot--foo--ha", "vpn-seed-server-0", "127.0.0.1"));
    directory.apply(endpoints("shoot--foo--ha", "vpn-seed-server-1", "127.0.0.1"));
    directory.apply(endpoints("shoot--foo--down", "vpn-seed-server"));
    proxy = new ConnectProxy({ directory, upstreamPort: echo.port });
    port = (await proxy.listen(0, "127.0.0.1")).port;
  });
  after(async () => {
    await proxy.close();
    for (const s of echo.sockets) s.destroy();
    echo.server.close();
  });

  void it("routes a CONNECT with a known server's header, forwards early bytes and passes the half-close on", async () => {
    const c = open(port);
    c.socket.write(connectWith(`Reversed-VPN: ${HEADER}`) + "early");
    assert.equal(await c.until("early"), OK + "early");
    c.socket.write("more");
    await c.until("more");
    c.socket.end();
    assert.equal(await c.closed, OK + "earlymorebye");
  });

  void it("matches the header name case-insensitively and trims its value; HA names route", async () => {
    for (const h of [`reversed-vpn:   ${HEADER}  `, `REVERSED-VPN: outbound|1194||vpn-seed-server-1.shoot--foo--ha.svc.cluster.local`]) {
      const c = open(port);
      c.socket.write(connectWith(h));
      assert.equal(await c.until(OK), OK);
      c.socket.destroy();
    }
  });

  void it("refuses other methods, missing, empty, repeated, malformed headers and unknown servers with 403", async () => {
    const cases = [
      `GET / HTTP/1.1\r\nReversed-VPN: ${HEADER}\r\n\r\n`,
      connectWith(),
      connectWith("Reversed-VPN:  "),
      connectWith(`Reversed-VPN: ${HEADER}`, `Reversed-VPN: ${HEADER}`),
      connectWith(`Reversed-VPN: ${HEADER}.bar`),
      connectWith(`Reversed-VPN: outbound|443||vpn-seed-server.${NS}.svc.cluster.local`),
      connectWith(`Reversed-VPN: outbound|1194||vpn-seed-server-11.${NS}.svc.cluster.local`),
      connectWith(`Reversed-VPN: outbound|1194||vpn-seed-server.shoot--other--x.svc.cluster.local`),
      connectWith(`Reversed-VPN: outbound|1194||vpn-seed-server-2.shoot--foo--ha.svc.cluster.local`),
      connectWith(`Reversed-VPN: outbound|1194||vpn-seed-server.shoot--foo--ha.svc.cluster.local`),
      connectWith(`X-Gardener-Destination: outbound|1194||vpn-seed-server.${NS}.svc.cluster.local`),
    ];
    for (const raw of cases) assert.equal(await exchange(port, raw), FORBIDDEN, raw);
  });

  void it("answers 400 to TLS bytes, HTTP/2, other versions, broken request lines and oversized heads", async () => {
    const cases: (string | Buffer)[] = [
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]),
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
      `CONNECT x:1194 HTTP/0.9\r\nReversed-VPN: ${HEADER}\r\n\r\n`,
      `CONNECT x:1194\r\nReversed-VPN: ${HEADER}\r\n\r\n`,
      `CONNECT  x:1194 HTTP/1.1\r\n\r\n`,
      `CONNECT x:1194 HTTP/1.1\r\nno colon\r\n\r\n`,
      connectWith(`X-Pad: ${"a".repeat(8200)}`, `Reversed-VPN: ${HEADER}`),
      "CONNECT x:1194 HTTP/1.1\r\nX-Pad: " + "a".repeat(9_000),
    ];
    for (const raw of cases) assert.equal(await exchange(port, raw), BAD_REQUEST, String(raw).slice(0, 40));
  });

  void it("answers 503 when a known server has no address or refuses", async () => {
    assert.equal(await exchange(port, connectWith("Reversed-VPN: outbound|1194||vpn-seed-server.shoot--foo--down.svc.cluster.local")), UNAVAILABLE);
    const refusing = new ServerDirectory();
    refusing.apply(endpoints(NS, "vpn-seed-server", "127.0.0.1"));
    const p = new ConnectProxy({ directory: refusing, upstreamPort: await closedPort() });
    const pp = (await p.listen(0, "127.0.0.1")).port;
    assert.equal(await exchange(pp, connectWith(`Reversed-VPN: ${HEADER}`)), UNAVAILABLE);
    const metrics = await p.registry.getSingleMetricAsString("vpn_connect_requests_total");
    assert.match(metrics, /result="unavailable"} 1/);
    await p.close();
  });

  void it("closes tunnels of a server whose Endpoints went away or moved, and only those", async () => {
    const a = open(port);
    a.socket.write(connectWith("Reversed-VPN: outbound|1194||vpn-seed-server-0.shoot--foo--ha.svc.cluster.local"));
    const b = open(port);
    b.socket.write(connectWith(`Reversed-VPN: ${HEADER}`));
    await a.until(OK);
    await b.until(OK);
    directory.apply(endpoints("shoot--foo--ha", "vpn-seed-server-0", "127.0.0.2"));
    assert.equal(await a.closed, OK);
    b.socket.write("still");
    await b.until("still");
    b.socket.destroy();
    directory.apply(endpoints("shoot--foo--ha", "vpn-seed-server-0", "127.0.0.1"));
  });

  void it("closes a connection whose head does not complete in 10 s, without answering", async () => {
    const clock = new FakeClock();
    const p = new ConnectProxy({ directory, clock, upstreamPort: echo.port });
    const pp = (await p.listen(0, "127.0.0.1")).port;
    const c = open(pp);
    c.socket.write("CONNECT x:1194 HTTP/1.0\r\n");
    await pollFor("the head timer", () => clock.pending() > 0);
    clock.step(9_999);
    assert.equal(c.socket.closed, false);
    clock.step(1);
    assert.equal(await c.closed, "");
    await p.close();
  });
});
