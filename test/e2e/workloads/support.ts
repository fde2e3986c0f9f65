// Helpers of the workloads e2e test: the landscape's machines seen from the host (what runs and is mounted
// inside a worker), and the pods of the shoot through real kubectl.
import { spawn } from "node:child_process";
import { LinuxHost } from "../../../src/host/index.ts";
import { PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { workerMachineName } from "../../../src/provider-local/machines/workers.ts";
import type { Landscape } from "../support/landscape.ts";
import { eventually } from "../../support/http.ts";
import { type Kubectl, kubectlFor } from "../../support/kubectl.ts";

export const shootMachine = (w: string): string => workerMachineName(SHOOT_TECHNICAL_ID, w);
export const shootNode = (w: string): string => `${SHOOT_TECHNICAL_ID}-worker-${w}`;

export function hostOf(l: Landscape): LinuxHost {
  return new LinuxHost({ stateDir: l.layout.hostState, prefix: l.prefix });
}

/** Runs a shell script inside a machine (as its root); its stdout. */
export async function inMachine(l: Landscape, machine: string, script: string): Promise<string> {
  return (await hostOf(l).execInMachine(machine, "sh", ["-c", script], { okExitCodes: [0, 1] })).stdout;
}

/** What of a pod (its uid) is left inside a machine: processes, mounts, network namespaces, runtime records. */
export async function podTraces(l: Landscape, machine: string, uid: string): Promise<string[]> {
  const out = await inMachine(l, machine, `ps -eo args | grep -F '${uid}' | grep -v grep; grep -F '${uid}' /proc/mounts; ls /run/netns 2>/dev/null | grep -F '${uid}'; ls /var/lib/gardener-node-agent/kubelet/pods 2>/dev/null | grep -F '${uid}'; true`);
  return out.split("\n").filter(Boolean);
}

export interface PodJson {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; containerStatuses?: { state: { terminated?: { exitCode: number; reason?: string } } }[] };
}

/** Waits until the pod's phase is one of `phases`; returns the pod. */
export async function podInPhase(k: Kubectl, name: string, phases: string[], timeoutMs = 60_000): Promise<PodJson> {
  return eventually(`pod ${name} in ${phases.join("/")}`, async () => {
    const r = await k.run(["get", "pod", name, "-o", "json"]);
    if (r.code !== 0) return undefined;
    const pod = JSON.parse(r.stdout) as PodJson;
    return phases.includes(pod.status.phase ?? "") ? pod : undefined;
  }, timeoutMs, 250);
}

/** Sends `signal` to the node agent processes of a machine (SIGSTOP: it stops heartbeating; SIGCONT: it goes on). */
export async function signalNodeAgent(l: Landscape, machine: string, signal: "STOP" | "CONT"): Promise<string[]> {
  const out = await inMachine(l, machine, `for p in /proc/[0-9]*; do if tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^[^ ]*node[^ ]* .*bin/gardener-node-agent.js'; then kill -${signal} \${p#/proc/} && echo \${p#/proc/}; fi; done`);
  return out.split("\n").filter(Boolean);
}

/** kubectl (the binary at `path`) under a pseudo-terminal (script(1)): each step waits for its text (after the previous step's), then types its input. */
export function kubectlInPty(path: string, kubeconfig: string, args: string, steps: { until: RegExp; send: string }[], timeoutMs = 30_000): Promise<{ out: string; code: number | null }> {
  const cmd = `stty cols 100 rows 40; exec ${path} --kubeconfig ${kubeconfig} ${args}`;
  const child = spawn("script", ["-qec", cmd, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: `${kubeconfig}-home`, TERM: "xterm" } });
  let out = "";
  let next = 0;
  let mark = 0;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const onData = (d: Buffer): void => {
      out += String(d);
      const step = steps[next];
      if (!step || !step.until.test(out.slice(mark))) return;
      next++;
      mark = out.length;
      child.stdin.write(step.send);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("close", (code) => (clearTimeout(timer), resolve({ out, code })));
  });
}

/** The pid of a recorded process of the landscape (the VPN's openvpn processes: vpn-shoot-client-0.<ns>, vpn-seed-server.<ns>.openvpn-0). */
export async function recordedPid(l: Landscape, name: string): Promise<number> {
  const pid = (await hostOf(l).processStatus(name))?.process?.pid;
  if (!pid) throw new Error(`${name} is not running`);
  return pid;
}

/**
 * Takes the reversed VPN's tunnels away until the returned pids get SIGCONT: freezes the vpn-shoot-client's
 * openvpn processes (so their supervisor sees them running and restarts nothing) and destroys their TCP
 * connections to the seed CONNECT proxy (the server side sees the reset at once and marks the tunnels down).
 */
export async function stopShootClient(l: Landscape): Promise<{ pids: number[]; clientNs: string }> {
  const host = hostOf(l);
  const pids = await Promise.all([0, 1].map((i) => recordedPid(l, `vpn-shoot-client-${i}.${SHOOT_TECHNICAL_ID}`)));
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  const clientNs = host.names.netns("vpnshoot", SHOOT_TECHNICAL_ID);
  await host.execInNetns(clientNs, "ss", ["-K", "dport", "=", ":8132"]);
  return { pids, clientNs };
}

export interface TunnelCondition {
  status: string;
  reason: string;
  message: string;
}

/** Waits (30 s) for the garden Shoot's tunnel condition (SystemComponentsHealthy, the gardenlet's tunnel check) to match. */
export async function tunnelCondition(l: Landscape, pred: (c: TunnelCondition) => boolean, what: string): Promise<TunnelCondition> {
  const garden = kubectlFor(l.layout.gardenKubeconfig);
  return eventually(`the Shoot's tunnel condition ${what}`, async () => {
    const shoot = await garden.json<{ status?: { conditions?: (TunnelCondition & { type: string })[] } }>(["get", "shoot", SHOOT, "-n", PROJECT_NAMESPACE]);
    const c = shoot.status?.conditions?.find((x) => x.type === "SystemComponentsHealthy");
    return c && pred(c) ? c : undefined;
  }, 30_000, 500);
}
