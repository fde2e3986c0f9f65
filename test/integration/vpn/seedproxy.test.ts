// The seed CONNECT proxy as a component (src/vpn/seedproxy.ts) against a real in-process seed API server:
// the vpn-seed-servers it knows are the seed's Endpoints labelled app=vpn-seed-server, followed by a
// watch: a CONNECT reaches a server once its Endpoints exists, its tunnels close when they go, other
// labels and ports are not servers, and /readyz, /metrics answer. Loopback only (an echo server stands in
// for OpenVPN on port 1194).
import assert from "node:assert/strict";
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import type { KubeObject } from "../../../src/apis/meta/v1/types.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { SeedProxy } from "../../../src/vpn/seedproxy.ts";
import { parseSeedProxyFlags } from "../../../src/vpn/seedproxy-options.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";

const Endpoints = resourceType<KubeObject>({ group: "", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true });
const Namespaces = resourceType<KubeObject>({ group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false });
const NS = "shoot--local--proxy";
const header = (name: string, ns = NS) => `Reversed-VPN: outbound|1194||${name}.${ns}.svc.cluster.local`;

function endpoints(name: string, ip: string, o: { app?: string; port?: number } = {}): KubeObject {
  return { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace: NS, labels: { app: o.app ?? "vpn-seed-server" } }, subsets: [{ addresses: [{ ip }], ports: [{ port: o.port ?? 1194 }] }] } as KubeObject;
}

/** Sends a CONNECT with `hdr`; resolves with the status line and the open socket (or closed). */
function connectThrough(port: number, hdr: string): Promise<{ status: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port }, () => s.write(`CONNECT vpn-seed-server:1194 HTTP/1.1\r\nHost: x\r\n${hdr}\r\n\r\n`));
    let got = "";
    s.on("data", function first(d: Buffer) {
      got += String(d);
      const end = got.indexOf("\r\n\r\n");
      if (end < 0) return;
      s.off("data", first);
      resolve({ status: got.split("\r\n")[0]!, socket: s });
    });
    s.on("error", reject);
  });
}

describe("the seed CONNECT proxy fed from the seed's Endpoints", () => {
  let seed: InProcessServer;
  let proxy: SeedProxy;
  let echo: Server;
  let proxyPort = 0;
  let healthPort = 0;

  before(async () => {
    seed = await startInProcessApiServer();
    await seed.admin.create(Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } as KubeObject);
    // Known before the proxy starts: the first list must carry it.
    await seed.admin.create(Endpoints, endpoints("vpn-seed-server", "127.0.0.1"));
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    proxy = new SeedProxy({ client: seed.admin, listen: { host: "127.0.0.1", port: 0 }, health: { host: "127.0.0.1", port: 0 }, upstreamPort: (echo.address() as AddressInfo).port });
    const started = await proxy.start();
    proxyPort = started.proxy.port;
    healthPort = started.health!.port;
  });
  after(async () => {
    await proxy?.close();
    echo?.close();
    await seed?.stop();
  });

  test("a server in the first list is reachable at once; bytes are copied both ways", async () => {
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status, 200);
    const { status, socket } = await connectThrough(proxyPort, header("vpn-seed-server"));
    assert.equal(status, "HTTP/1.1 200 Connection established");
    const back = new Promise<string>((r) => socket.once("data", (d: Buffer) => r(String(d))));
    socket.write("ping");
    assert.equal(await back, "ping");
    socket.destroy();
  });

  test("a server added later is known once its Endpoints is watched; other labels and ports are not servers", async () => {
    assert.match((await connectThrough(proxyPort, header("vpn-seed-server-0"))).status, /^HTTP\/1\.1 403 /);
    await seed.admin.create(Endpoints, endpoints("vpn-seed-server-1", "127.0.0.1", { app: "something-else" }));
    await seed.admin.create(Endpoints, endpoints("vpn-seed-server-2", "127.0.0.1", { port: 1195 }));
    const known = new Promise<void>((resolve) => {
      const off = proxy.directory.onChange((_ns, name) => name === "vpn-seed-server-0" && (off(), resolve()));
    });
    await seed.admin.create(Endpoints, endpoints("vpn-seed-server-0", "127.0.0.1"));
    await known;
    assert.equal((await connectThrough(proxyPort, header("vpn-seed-server-0"))).status, "HTTP/1.1 200 Connection established");
    for (const name of ["vpn-seed-server-1", "vpn-seed-server-2"]) {
      assert.ok(proxy.directory.lookup(NS, name) === undefined, `${name} is no server`);
      assert.match((await connectThrough(proxyPort, header(name))).status, /^HTTP\/1\.1 403 /);
    }
  });

  test("deleting a server's Endpoints closes its tunnels and refuses new ones", async () => {
    const { socket } = await connectThrough(proxyPort, header("vpn-seed-server"));
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    await seed.admin.delete(Endpoints, { namespace: NS, name: "vpn-seed-server" });
    await closed;
    assert.match((await connectThrough(proxyPort, header("vpn-seed-server"))).status, /^HTTP\/1\.1 403 /);
    const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
    assert.match(metrics, /vpn_connect_requests_total\{result="[a-z_]+"\} [1-9]/);
  });
});

describe("vpn-seed-proxy flags", () => {
  test("needs a kubeconfig, takes host:port addresses and says what is wrong in one line", () => {
    const ok = parseSeedProxyFlags(["--kubeconfig", "k", "--bind-address", "198.18.0.1:8132", "--health-bind-address", "0"]);
    assert.deepEqual(ok.kind === "options" && ok.options, { kubeconfig: "k", bindAddress: { host: "198.18.0.1", port: 8132 }, healthBindAddress: undefined, logLevel: "info" });
    const missing = parseSeedProxyFlags([]);
    assert.deepEqual(missing.kind === "exit" && [missing.code, missing.stderr], [2, "error: --kubeconfig is required\n"]);
    const bad = parseSeedProxyFlags(["--kubeconfig", "k", "--bind-address", "proxy:8132"]);
    assert.deepEqual(bad.kind === "exit" && [bad.code, bad.stderr], [2, 'error: invalid value "proxy:8132" for --bind-address: proxy is not an IP address\n']);
    const help = parseSeedProxyFlags(["--help"]);
    assert.ok(help.kind === "exit" && help.code === 0 && help.stdout.includes("--bind-address") && help.stdout.includes("Example:"));
  });
});
