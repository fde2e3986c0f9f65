// Chaos on the landscape's reversed VPN: SIGKILL of the vpn-seed-server (its process and both OpenVPN
// servers), of the vpn-shoot-client (both OpenVPN clients and its health process) and of the seed CONNECT proxy
// (a landscape component), each at a random point of a running `kubectl exec` stream, then all three at random
// offsets; their supervisors restart them and the next `kubectl exec` works within seconds.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { eventually } from "../../support/http.ts";
import type { Kubectl } from "../../support/kubectl.ts";
import { prng } from "../../support/prng.ts";
import type { Landscape } from "../support/landscape.ts";
import { hostSnapshot } from "../support/landscape.ts";
import { hostOf } from "./support.ts";

/**
 * The killed processes run again within this long: 1 s for the VPN's; the seed proxy's backoff and its Node start,
 * which took 14-15 s at a load average of 20 on the 2-core machine.
 */
export const RESTART_MS = 60_000;
/**
 * Once they run, exec works again within this long: OpenVPN's retry pause (at most 2 s), its 2 s wait for header
 * lines after the proxy's 200, TLS, the vpn-seed-server's 250 ms poll while no tunnel is up; measured 3.0-4.5 s
 * at a load average of 20.
 */
export const CONVERGE_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True once host:port accepts a TCP connection. */
function listening(host: string, port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const s = connect(port, host, () => (s.destroy(), resolve(true)));
    s.setTimeout(1000, () => (s.destroy(), resolve(undefined)));
    s.on("error", () => resolve(undefined));
  });
}

type Target = "vpn-seed-server" | "vpn-shoot-client" | "vpn-seed-proxy";

/** The pids of a target's processes now (recorded host processes, or the component's pid file). */
async function pidsOf(l: Landscape, target: Target): Promise<number[]> {
  if (target === "vpn-seed-proxy") {
    const pid = l.pidOf("vpn-seed-proxy");
    return pid ? [pid] : [];
  }
  const ns = SHOOT_TECHNICAL_ID;
  const names = target === "vpn-seed-server"
    ? [`vpn-seed-server.${ns}`, `vpn-seed-server.${ns}.openvpn-0`, `vpn-seed-server.${ns}.openvpn-1`]
    : [`vpn-shoot-client-0.${ns}`, `vpn-shoot-client-1.${ns}`, `vpn-shoot-client.${ns}.health`];
  const host = hostOf(l);
  const pids = await Promise.all(names.map(async (n) => (await host.processStatus(n))?.process?.pid));
  return pids.filter((p): p is number => p !== undefined);
}

async function kill(l: Landscape, target: Target): Promise<number[]> {
  const pids = await pidsOf(l, target);
  assert.ok(pids.length > 0, `${target} runs`);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (err) {
      // Gone already: an OpenVPN server dies with the vpn-seed-server that it belongs to, or is still restarting.
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
  }
  return pids;
}

/** Runs the chaos rounds against the running pod `pod`; prints each round's time to a working exec. */
export async function vpnChaos(l: Landscape, k: Kubectl, pod: string, progress: (line: string) => void): Promise<void> {
  const seed = Number(process.env.VPN_CHAOS_SEED ?? Math.floor(Math.random() * 1e6));
  const rand = prng(seed); // a failing run can be repeated with VPN_CHAOS_SEED
  progress(`VPN chaos with VPN_CHAOS_SEED=${seed}`);
  const once: Target[][] = [["vpn-seed-server"], ["vpn-shoot-client"], ["vpn-seed-proxy"], ["vpn-seed-server", "vpn-shoot-client", "vpn-seed-proxy"]];
  // VPN_CHAOS_REPEAT runs the rounds several times (to find a rare slow convergence; CI runs them once).
  const rounds = Array.from({ length: Math.max(1, Number(process.env.VPN_CHAOS_REPEAT ?? 1)) }, () => once).flat();
  for (const targets of rounds) {
    const stream = k.stream(["exec", pod, "--", "sh", "-c", "while :; do echo tick; sleep 0.2; done"]);
    const killed = new Map<Target, number[]>();
    try {
      await stream.waitFor(/tick/, 20_000);
      // A random point of the running stream, and for several targets random offsets between them.
      for (const t of targets) {
        await sleep(Math.floor(rand() * 1500));
        killed.set(t, await kill(l, t));
      }
      const start = Date.now();
      for (const [t, old] of killed) {
        await eventually(`${t} restarted`, async () => {
          const pids = await pidsOf(l, t);
          return pids.length === old.length && pids.every((p) => !old.includes(p)) ? pids : undefined;
        }, RESTART_MS, 100);
      }
      if (killed.has("vpn-seed-proxy")) await eventually("the seed proxy listening again", () => listening(l.hostAddress, 8132), RESTART_MS, 100);
      const restarted = Date.now();
      const failures: string[] = [];
      await eventually(`exec after SIGKILL of ${targets.join(", ")}`, async () => {
        const t0 = Date.now();
        const r = await k.run(["exec", pod, "--", "true"], { timeoutMs: 10_000 });
        if (r.code === 0) return true;
        failures.push(`+${t0 - restarted} ms (${Date.now() - t0} ms): ${r.stderr.trim().split("\n").pop() ?? ""}`);
        return undefined;
      }, 60_000, 250);
      const ms = Date.now() - restarted;
      progress(`SIGKILL of ${targets.join(", ")}: running again after ${restarted - start} ms, exec works ${ms} ms later${failures.length ? `; failed attempts: ${failures.join("; ")}` : ""}`);
      assert.ok(ms < CONVERGE_MS, `exec worked again only ${ms} ms (at most ${CONVERGE_MS} ms) after ${targets.join(", ")} ran again`);
    } finally {
      await stream.stop();
    }
  }
  // Nothing leaked: each VPN process runs once (no survivor of a killed one beside its successor), and the
  // records point at the running ones.
  const processes = hostSnapshot(l.dir, l.prefix).processes;
  const count = (re: RegExp) => processes.filter((p) => re.test(p)).length;
  assert.deepEqual(
    { openvpn: count(/\bopenvpn --config /), seedServer: count(/vpn-seed-server\.js /), shootHealth: count(/vpn-shoot-client\.js /), seedProxy: count(/vpn-seed-proxy\.js /) },
    { openvpn: 4, seedServer: 1, shootHealth: 1, seedProxy: 1 },
    processes.join("\n"),
  );
  for (const t of ["vpn-seed-server", "vpn-shoot-client", "vpn-seed-proxy"] as const) assert.equal((await pidsOf(l, t)).length, t === "vpn-seed-proxy" ? 1 : 3, `${t} recorded and running`);
}
