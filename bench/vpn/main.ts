// bench/vpn: the reversed VPN on the real local landscape (root; run it under `flock /tmp/landscape.lock`).
// Brings the landscape up in a fresh state directory (HA: two tunnels), then prints: vpn-shoot-client start ->
// tunnel up; `kubectl exec POD -- true` p50/p99 through the tunnel and over a direct path made for the run
// (bench/vpn/direct.ts), alternating, and their ratio; a 100 MiB stream out of a pod (`kubectl exec POD --
// head -c`), tunnel vs direct; pods/proxy through the tunnel; HA failover (the selected tunnel's OpenVPN
// server killed -> the next exec works). Goals (docs/reversed-vpn.md): tunnel up < 3 s, exec p50 <= 1.2x
// direct, throughput >= 0.5x direct, failover < 2 s.
//   flock /tmp/landscape.lock node --import tsx bench/vpn/main.ts [--execs 40 --streams 3 --mib 100 --restarts 5 --failovers 3]
import { join } from "node:path";
import { loadavg } from "node:os";
import { SHOOT_TECHNICAL_ID } from "../../src/landscape/layout.ts";
import { kubectlFor } from "../../test/support/kubectl.ts";
import { startLandscape } from "../../test/e2e/support/landscape.ts";
import { hostOf, podInPhase, recordedPid, shootMachine } from "../../test/e2e/workloads/support.ts";
import { summarize, table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { makeDirectPath } from "./direct.ts";
import { execOnce, gauge, processStart, seedServerMetrics, streamOut, until } from "./measure.ts";

const args = benchArgs(
  "flock /tmp/landscape.lock node --import tsx bench/vpn/main.ts",
  "The reversed VPN on the real local landscape (root): tunnel up, kubectl exec through the tunnel against a direct path, a stream out of a pod, pods/proxy, HA failover.",
  {
    execs: { type: "string", default: "40", help: "kubectl exec round trips per path" },
    streams: { type: "string", default: "3", help: "streams out of a pod per path" },
    mib: { type: "string", default: "100", help: "MiB per stream" },
    restarts: { type: "string", default: "5", help: "vpn-shoot-client restarts, each timed to tunnel up" },
    failovers: { type: "string", default: "3", help: "HA failovers (the selected tunnel's server killed)" },
    prefix: { type: "string", default: "glv-", help: "host object prefix of the landscape" },
    ports: { type: "string", default: "33443,33444,33445,33446", help: "garden,seed,shoot API server ports and the direct path's" },
  },
);
const values = args.values;
const n = (k: "execs" | "streams" | "mib" | "restarts" | "failovers"): number => args.count(k);
const [garden, seed, shoot, directPort] = values.ports.split(",").map(Number) as [number, number, number, number];
const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} bench: ${line}\n`);
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(" ");
const rows: (string | number)[][] = [["figure", "p50", "p99", "max", "goal"]];
const stat = (label: string, samples: number[], unit: string, goal = ""): void => {
  const s = summarize(samples);
  rows.push([`${label} (${unit}, n=${s.n})`, s.p50, s.p99, s.max, goal]);
};
const SERVERS = ["vpn-seed-server-0", "vpn-seed-server-1"];

const l = await startLandscape({ prefix: values.prefix, ports: { garden, seed, shoot }, out: (line) => log(line) });
let removeDirect: (() => Promise<void>) | undefined;
try {
  const host = hostOf(l);
  const tunnelKubeconfig = join(l.layout.apiServerDir("shoot"), "admin.kubeconfig");
  const k = kubectlFor(tunnelKubeconfig);
  log(`landscape up; load ${load()}`);
  await k.ok(["run", "bench", "--image=busybox", "--", "sleep", "36000"]);
  await k.ok(["run", "web", "--image=busybox", "--", "sh", "-c", "mkdir -p /tmp/w && echo hello-through-the-tunnel > /tmp/w/index.html && exec python3 -m http.server 8080 --bind 0.0.0.0 --directory /tmp/w"]);
  await podInPhase(k, "bench", ["Running"]);
  await podInPhase(k, "web", ["Running"]);

  // 1. vpn-shoot-client start -> tunnel up: tunnel 1's client openvpn killed; from its restarted process's start
  //    to the vpn-seed-server reporting the tunnel up (its management interface's connect event).
  const ups: number[] = [];
  for (let i = 0; i < n("restarts"); i++) {
    const name = `vpn-shoot-client-1.${SHOOT_TECHNICAL_ID}`;
    const old = await recordedPid(l, name);
    process.kill(old, "SIGKILL");
    await until("tunnel 1 down", async () => gauge(await seedServerMetrics(), "vpn_tunnel_up", SERVERS[1]!) === 0, 30_000);
    const pid = await until("a new client process", async () => (await host.processStatus(name))?.process?.pid !== old && (await host.processStatus(name))?.running === true, 30_000).then(() => recordedPid(l, name));
    const started = processStart(pid);
    const up = await until("tunnel 1 up", async () => gauge(await seedServerMetrics(), "vpn_tunnel_up", SERVERS[1]!) === 1, 30_000);
    ups.push(up - started);
    log(`restart ${i + 1}: client process start -> tunnel up ${(up - started).toFixed(0)} ms`);
  }
  stat("vpn-shoot-client start -> tunnel up", ups, "ms", "< 3000");

  // 2. pods/proxy through the tunnel (once the pod's server listens); a failure is reported, the rest still measured.
  let lastProxyError = "";
  const proxyWorks = await until("the pod's HTTP server through pods/proxy", async () => {
    const r = await k.run(["get", "--raw", "/api/v1/namespaces/default/pods/web:8080/proxy/"]);
    lastProxyError = r.stderr.trim();
    return r.code === 0;
  }, 30_000, 250).then(() => true, async () => {
    const routes = (await host.execInNetns(host.names.netns("vpnshoot", SHOOT_TECHNICAL_ID), "ip", ["-4", "route"])).stdout;
    log(`pods/proxy failed: ${lastProxyError}\npod web: ${await k.ok(["get", "pod", "web", "-o", "wide"])}\nlogs: ${(await k.run(["logs", "web"])).stdout}\nvpn-shoot-client routes:\n${routes}`);
    return false;
  });
  const proxied: number[] = [];
  for (let i = 0; proxyWorks && i < 10; i++) {
    const t0 = performance.now();
    const body = await k.ok(["get", "--raw", "/api/v1/namespaces/default/pods/web:8080/proxy/"]);
    if (!body.includes("hello-through-the-tunnel")) throw new Error(`pods/proxy answered ${body.slice(0, 200)}`);
    proxied.push(performance.now() - t0);
  }
  if (proxyWorks) stat("kubectl get --raw pods/web:8080/proxy/ (tunnel)", proxied, "ms");
  else rows.push(["kubectl get --raw pods/web:8080/proxy/ (tunnel)", "FAILED", lastProxyError.slice(0, 60), "", ""]);

  // 3. The direct path, then exec and streams alternating between the two API servers.
  const workers = await Promise.all(["w1", "w2"].map(async (w) => ({ machine: shootMachine(w), address: await k.ok(["get", "node", `${SHOOT_TECHNICAL_ID}-worker-${w}`, "-o", "jsonpath={.status.addresses[?(@.type==\"InternalIP\")].address}"]) })));
  const direct = await makeDirectPath({ host, layout: l.layout, hostAddress: l.hostAddress, port: directPort, workers, log });
  removeDirect = direct.remove;
  for (const kc of [tunnelKubeconfig, direct.kubeconfig]) await execOnce(kc, "bench"); // warm both (kubectl's discovery cache)
  const execs = { tunnel: [] as number[], direct: [] as number[] };
  for (let i = 0; i < n("execs"); i++) {
    execs.tunnel.push(await execOnce(tunnelKubeconfig, "bench"));
    execs.direct.push(await execOnce(direct.kubeconfig, "bench"));
  }
  log(`exec done; load ${load()}`);
  const bytes = n("mib") * 1024 * 1024;
  const streams = { tunnel: [] as number[], direct: [] as number[] };
  for (let i = 0; i < n("streams"); i++) {
    streams.tunnel.push(await streamOut(tunnelKubeconfig, "bench", bytes));
    streams.direct.push(await streamOut(direct.kubeconfig, "bench", bytes));
    log(`stream ${i + 1}: tunnel ${streams.tunnel.at(-1)!.toFixed(1)} MiB/s, direct ${streams.direct.at(-1)!.toFixed(1)} MiB/s`);
  }
  await direct.remove();
  removeDirect = undefined;
  stat("kubectl exec -- true, tunnel", execs.tunnel, "ms");
  stat("kubectl exec -- true, direct", execs.direct, "ms");
  const e = { t: summarize(execs.tunnel), d: summarize(execs.direct) };
  rows.push(["exec tunnel / direct (ratio)", e.t.p50 / e.d.p50, e.t.p99 / e.d.p99, "", "p50 <= 1.2"]);
  stat(`${n("mib")} MiB out of a pod, tunnel`, streams.tunnel, "MiB/s");
  stat(`${n("mib")} MiB out of a pod, direct`, streams.direct, "MiB/s");
  const sT = summarize(streams.tunnel).p50;
  const sD = summarize(streams.direct).p50;
  rows.push(["stream tunnel / direct (ratio of p50)", sT / sD, "", "", ">= 0.5"]);

  // 4. HA failover: the selected tunnel's OpenVPN server killed -> the next `kubectl exec` works.
  const failovers: number[] = [];
  for (let i = 0; i < n("failovers"); i++) {
    await until("both tunnels up", async () => { const m = await seedServerMetrics(); return SERVERS.every((s) => gauge(m, "vpn_tunnel_up", s) === 1); }, 60_000, 100);
    const m = await seedServerMetrics();
    const index = Math.max(0, SERVERS.findIndex((s) => gauge(m, "vpn_egress_tunnel_selected", s) === 1));
    process.kill(await recordedPid(l, `vpn-seed-server.${SHOOT_TECHNICAL_ID}.openvpn-${index}`), "SIGKILL");
    const killed = performance.now();
    const ok = await until("an exec through the other tunnel", async () => { await execOnce(tunnelKubeconfig, "bench"); return true; }, 20_000, 50);
    failovers.push(ok - killed);
    log(`failover ${i + 1}: ${SERVERS[index]} killed -> exec worked after ${(ok - killed).toFixed(0)} ms`);
  }
  stat("HA failover: selected OpenVPN server killed -> next exec done", failovers, "ms", "< 2000");
  rows.push(["load average at the end", load(), "", "", ""]);
  process.stdout.write(`\n${table(rows)}\n`);
} finally {
  await removeDirect?.().catch(() => undefined);
  await l.stop((line) => log(line));
}
