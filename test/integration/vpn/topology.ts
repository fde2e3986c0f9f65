// A seed and a shoot on this host for the reversed-VPN tests, built through host/ with a prefix of its own:
//
//   host namespace: bridge <p>seed, 198.19.R.1/24 (the seed network; the CONNECT proxy listens on .1)
//     <p>vpn    (the control plane's VPN namespace)  eth0 198.19.R.2/24
//     <p>router (the shoot's router)                 up   198.19.R.3/24, default via .1, NAT of the node network
//                                                    nodes (bridge) 10.250.0.1/16
//       <p>node     (a shoot node)                   eth0 10.250.0.10/16, a banner server on 7000
//       <p>vpnshoot (the vpn-shoot-client)           eth0 10.250.0.5/16
//
// Nothing routes from the seed into the node network: only the tunnel reaches it.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { connect as tlsConnect } from "node:tls";
import type { VpnCredentials } from "../../../src/vpn/credentials.ts";
import { type TestHost, NC, newTestHost } from "../../e2e/host/support.ts";
import { ConnectProxy } from "../../../src/vpn/connectproxy.ts";
import { ServerDirectory } from "../../../src/vpn/servers.ts";

export const skipVpn: string | false =
  process.getuid?.() !== 0
    ? "the reversed-VPN tests need root (network namespaces, /dev/net/tun): run them as root"
    : !existsSync("/usr/sbin/openvpn")
      ? "the reversed-VPN tests need Debian's openvpn (npm run setup installs it)"
      : false;

export const NAMESPACE = "shoot--local--vpn";
export const SHOOT_CIDRS = ["10.250.0.0/16", "100.96.0.0/11", "100.64.0.0/13"];
export const NODE_ADDRESS = "10.250.0.10";
export const CLIENT_ADDRESS = "10.250.0.5";
export const BANNER_PORT = 7000;

export interface Topology {
  t: TestHost;
  seedNet: string;
  proxyAddress: string;
  vpnAddress: string;
  /** HA: the addresses of vpn-seed-server-0 and -1. */
  vpnAddresses: string[];
  vpnNs: string;
  routerNs: string;
  nodeNs: string;
  clientNs: string;
  directory: ServerDirectory;
  proxy: ConnectProxy;
}

/** Builds the topology on `t` (default: a fresh test host with a prefix of its own). */
export async function buildTopology(given?: TestHost, o: { highAvailability?: boolean } = {}): Promise<Topology> {
  const t = given ?? (await newTestHost());
  const { host } = t;
  const r = 1 + Math.floor(Math.random() * 250);
  const net = (i: number) => `198.19.${r}.${i}`;
  const ns = (n: string) => host.names.netns(n);
  const bridge = host.names.link("seed");
  const [vpnNs, routerNs, nodeNs, clientNs] = [ns("vpn"), ns("router"), ns("node"), ns("vpnshoot")];
  for (const n of [vpnNs, routerNs, nodeNs, clientNs]) {
    await host.ensureNetns(n, { owner: "vpn-test" });
    t.tracker.netns(n);
  }
  await host.ensureBridge({ name: bridge, addresses: [`${net(1)}/24`], owner: "vpn-test" });
  // HA: a second address for vpn-seed-server-1.
  const vpnAddresses = o.highAvailability ? [net(2), net(4)] : [net(2)];
  await host.ensureVeth({ name: "eth0", netns: vpnNs, addresses: vpnAddresses.map((a) => `${a}/24`), peer: { name: host.names.link("vpn", "0"), master: bridge } });
  await host.ensureVeth({ name: "up", netns: routerNs, addresses: [`${net(3)}/24`], peer: { name: host.names.link("router", "0"), master: bridge } });
  await host.ensureRoute({ netns: routerNs, destination: "default", via: net(1), dev: "up" });
  await host.ensureBridge({ name: "nodes", netns: routerNs, addresses: ["10.250.0.1/16"] });
  await host.ensureNat({ name: "shoot", netns: routerNs, sourceCidr: "10.250.0.0/16", outInterface: "up" });
  for (const [n, addr, i] of [[nodeNs, NODE_ADDRESS, 1], [clientNs, CLIENT_ADDRESS, 2]] as const) {
    await host.ensureVeth({ name: "eth0", netns: n, addresses: [`${addr}/16`], peer: { name: `n${i}`, netns: routerNs, master: "nodes" } });
    await host.ensureRoute({ netns: n, destination: "default", via: "10.250.0.1", dev: "eth0" });
  }
  const banner = `require("net").createServer((s) => s.end("hello from node-1 to " + s.remoteAddress + "\\n")).listen(${BANNER_PORT}, "${NODE_ADDRESS}")`;
  await host.startProcess({ name: "banner", netns: nodeNs, command: process.execPath, args: ["-e", banner], owner: "vpn-test" });

  const directory = new ServerDirectory();
  const names = o.highAvailability ? ["vpn-seed-server-0", "vpn-seed-server-1"] : ["vpn-seed-server"];
  names.forEach((name, i) =>
    directory.apply({
      metadata: { name, namespace: NAMESPACE, labels: { app: "vpn-seed-server" } },
      subsets: [{ addresses: [{ ip: vpnAddresses[i]! }], ports: [{ port: 1194 }] }],
    }),
  );
  directory.markSynced();
  const proxy = new ConnectProxy({ directory });
  await proxy.listen(8132, net(1));
  return { t, seedNet: `${net(0)}/24`, proxyAddress: net(1), vpnAddress: net(2), vpnAddresses, vpnNs, routerNs, nodeNs, clientNs, directory, proxy };
}

/** A TCP exchange from inside a namespace (optionally from a bound source address): what the peer sent, or undefined. */
export async function fetchBanner(top: Topology, netns: string, source: string | undefined, address = NODE_ADDRESS, port = BANNER_PORT): Promise<string | undefined> {
  const args = [...(source ? ["-s", source] : []), "-w", "2", address, String(port)];
  const res = await top.t.host.execInNetns(netns, NC, args, { okExitCodes: [0, 1] });
  return res.exitCode === 0 && res.stdout !== "" ? res.stdout : undefined;
}

/** Polls until the banner comes through (a real tunnel coming up); returns it and the time it took. */
export async function waitForBanner(top: Topology, netns: string, source: string, timeoutMs = 20_000): Promise<{ banner: string; ms: number }> {
  const start = Date.now();
  for (;;) {
    const banner = await fetchBanner(top, netns, source);
    if (banner) return { banner, ms: Date.now() - start };
    assert.ok(Date.now() - start < timeoutMs, `no answer through the tunnel within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `check` (a real process or tunnel changing state) until it holds. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    assert.ok(Date.now() - start < timeoutMs, `${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GET on the vpn-seed-server's health port. */
export async function health(top: Topology, path: string): Promise<{ code: number; body: string }> {
  const r = await fetch(`http://${top.vpnAddress}:15000${path}`, { signal: AbortSignal.timeout(3000) });
  return { code: r.status, body: await r.text() };
}

/** `CONNECT target` to the egress proxy as the shoot API server does (mutual TLS); everything received until close. */
export function egressConnect(top: Topology, creds: VpnCredentials, target: string, timeoutMs = 5000, payload = ""): Promise<string> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: top.vpnAddress, port: 9443, ca: creds.bundle, cert: creds.egressClient.certPem, key: creds.egressClient.keyPem, servername: "vpn-seed-server" });
    let data = "";
    s.setTimeout(timeoutMs, () => s.destroy());
    s.on("secureConnect", () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${payload}`));
    s.on("data", (c: Buffer) => (data += c.toString()));
    s.on("error", () => undefined);
    s.on("close", () => resolve(data));
  });
}
