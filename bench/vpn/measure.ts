// bench/vpn's measurements: kubectl exec round trips and a 100 MiB stream out of a pod (through any API
// server's kubeconfig), the vpn-seed-server's tunnel state from its /metrics, and the start time of a process.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { VPN_SERVER_ADDRESS } from "../../src/landscape/vpn.ts";
import { kubectl, kubectlPath } from "../../test/support/kubectl.ts";

const VERSION = "1.33";

/** ms of one `kubectl exec <pod> -- true` (kubectl's own start included, as a user sees it). */
export async function execOnce(kubeconfig: string, pod: string): Promise<number> {
  const t0 = performance.now();
  const r = await kubectl(VERSION, ["exec", pod, "--", "true"], { kubeconfig, timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`kubectl exec ${pod} -- true: exit ${r.code}: ${r.stderr.trim()}`);
  return performance.now() - t0;
}

/** MiB/s of `kubectl exec <pod> -- head -c <bytes> /dev/zero`, counting what reaches kubectl's stdout. */
export function streamOut(kubeconfig: string, pod: string, bytes: number): Promise<number> {
  const home = join(dirname(kubeconfig), `kubectl-home-${VERSION}`);
  const child = spawn(kubectlPath(VERSION), ["--kubeconfig", kubeconfig, "exec", pod, "--", "head", "-c", String(bytes), "/dev/zero"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KUBECACHEDIR: join(home, "cache"), KUBECONFIG: kubeconfig },
  });
  const t0 = performance.now();
  let got = 0;
  let err = "";
  child.stdout.on("data", (d: Buffer) => (got += d.length));
  child.stderr.on("data", (d: Buffer) => (err += String(d)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      const s = (performance.now() - t0) / 1000;
      if (code !== 0 || got !== bytes) return reject(new Error(`stream of ${bytes} bytes: exit ${code}, got ${got}: ${err.trim()}`));
      resolve(bytes / 1024 / 1024 / s);
    });
  });
}

/** The vpn-seed-server's metrics (health port on the VPN namespace's first address). */
export async function seedServerMetrics(): Promise<string> {
  return (await fetch(`http://${VPN_SERVER_ADDRESS}:15000/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
}

export function gauge(metrics: string, name: string, server: string): number | undefined {
  const m = new RegExp(`^${name}\\{server="${server}"\\} (\\S+)$`, "m").exec(metrics);
  return m ? Number(m[1]) : undefined;
}

/** Polls every `everyMs` until `check` holds; the performance.now() at which it did. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 10): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return performance.now();
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** When a process started, on performance.now()'s scale (from /proc: clock ticks since boot, 10 ms steps). */
export function processStart(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTicks = Number(fields[19]);
  const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  return performance.now() - (uptime - startTicks / 100) * 1000;
}
