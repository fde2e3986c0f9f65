// Runs inside a worker machine (through execInMachine): drives a PodRuntime through one scenario and
// prints what it observed as JSON on the last line; the e2e test outside asserts on it.
// usage: node --import tsx driver.ts <stateDir> <scenario>
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { LinuxHost } from "../../../src/host/index.ts";
import { NestedExec } from "../../../src/host/nested-exec.ts";
import { mountPoints } from "../../../src/host/mounts.ts";
import { PodRuntime } from "../../../src/nodeagent/kubelet/runtime/runtime.ts";
import type { Container, Pod, PodInputs, PodRuntimeStatus } from "../../../src/nodeagent/kubelet/runtime/types.ts";
import type { ContainerStream } from "../../../src/host/containers.ts";

const [stateDir, scenario] = process.argv.slice(2) as [string, string];
const host = new LinuxHost({ stateDir, prefix: "gk-", exec: new NestedExec() });
// "basic" runs without the poller (an hour): containers that end are found by the watch of their exit file alone.
const rt = new PodRuntime({ host, podCIDR: "10.96.7.0/24", apiServer: { host: "10.96.0.1", port: 443 }, backoff: { initialMs: 1000, maxMs: 2000, resetAfterMs: 60_000 }, pollMs: scenario === "basic" ? 3_600_000 : 50 });
const changed: string[] = [];
rt.onChange((uid) => changed.push(uid));

let n = 0;
function pod(name: string, containers: Partial<Container>[], spec: Partial<Pod["spec"]> = {}): Pod {
  return {
    metadata: { name, namespace: "default", uid: `${name}-0000-${(n++).toString().padStart(4, "0")}` },
    spec: { containers: containers.map((c, i) => ({ name: `c${i}`, image: "busybox", ...c })), ...spec },
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(p: Pod, ok: (s: PodRuntimeStatus) => boolean, timeoutMs = 20_000): Promise<PodRuntimeStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await rt.status(p);
    if (ok(s) || Date.now() > deadline) return s;
    await sleep(50);
  }
}
async function text(r: NodeJS.ReadableStream | null): Promise<string> {
  if (!r) return "";
  let out = "";
  for await (const c of r) out += String(c);
  return out;
}
async function run(p: Pod, cmd: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  const s = await rt.exec(p, "c0", cmd, { stdin: stdin !== undefined });
  if (stdin !== undefined) s.stdin!.end(stdin);
  const [out, err, code] = await Promise.all([text(s.stdout), text(s.stderr), s.exit]);
  return { code, out, err };
}
async function readUntil(s: ContainerStream, re: RegExp, timeoutMs = 10_000): Promise<string> {
  let buf = "";
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(buf), timeoutMs);
    s.stdout.on("data", (d) => {
      buf += String(d);
      if (re.test(buf)) {
        clearTimeout(t);
        resolve(buf);
      }
    });
  });
}
/** What of the runtime's things exists in this machine. */
function leftovers(pids: number[]) {
  const netns = (() => {
    try {
      return readdirSync("/run/netns").filter((x) => x.startsWith("gk-pod"));
    } catch {
      return [];
    }
  })();
  const alive = pids.filter((pid) => {
    try {
      return !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/\(.*\)/, "x"));
    } catch {
      return false;
    }
  });
  return { netns, alive, pods: readdirSync(`${stateDir}/pods`).length };
}
const result: Record<string, unknown> = {};

switch (scenario) {
  case "basic": {
    const p = pod("basic", [{ command: ["sh", "-c", "echo hi; echo oops >&2; exit 3"] }], { restartPolicy: "Never" });
    await rt.sync(p);
    result.status = await until(p, (s) => s.containerStatuses[0]!.state.terminated !== undefined);
    result.logs = await text(await rt.logs(p, "c0"));
    const bad = pod("bad", [{ image: "nginx:1.25" }]);
    result.bad = (await rt.sync(bad)).containerStatuses[0];
    await sleep(500);
    result.bad2 = (await rt.sync(bad)).containerStatuses[0];
    const init = pod("init", [{ command: ["sh", "-c", "cat /work/done; sleep 60"], volumeMounts: [{ name: "w", mountPath: "/work" }] }], {
      initContainers: [
        { name: "i0", image: "busybox", command: ["sh", "-c", "echo one > /work/done"], volumeMounts: [{ name: "w", mountPath: "/work" }] },
        { name: "i1", image: "alpine", command: ["sh", "-c", "echo two >> /work/done"], volumeMounts: [{ name: "w", mountPath: "/work" }] },
      ],
      volumes: [{ name: "w", emptyDir: {} }],
    });
    await rt.sync(init);
    result.init = await until(init, (s) => s.phase === "Running");
    // The main container's `cat` runs after it is Running: its log is read until it has the second line.
    const logsDeadline = Date.now() + 20_000;
    for (;;) {
      result.initLogs = await text(await rt.logs(init, "c0"));
      if (String(result.initLogs).includes("two") || Date.now() > logsDeadline) break;
      await sleep(50);
    }
    // The runtime reports a change after the converge that started a container has saved its record,
    // so the main container can be Running (and its log read) a moment before the last report.
    const initChanges = () => changed.filter((u) => u === init.metadata.uid).length;
    const changesDeadline = Date.now() + 20_000;
    while (initChanges() < 2 && Date.now() < changesDeadline) await sleep(20);
    result.initChanges = initChanges();
    for (const x of [p, bad, init]) await rt.cleanup(x.metadata.uid);
    break;
  }
  case "restart": {
    const p = pod("restart", [{ command: ["sh", "-c", "echo run; exit 1"] }]);
    await rt.sync(p);
    const seen: { t: number; restartCount: number; reason?: string; message?: string }[] = [];
    const runs = new Map<string, { startedAt?: string; finishedAt: string }>();
    const t0 = Date.now();
    // Until five runs have ended (four restarts: at once, after 1 s, 2 s, 2 s), however long the machine takes.
    while (runs.size < 5 && Date.now() - t0 < 60_000) {
      const s = (await rt.status(p)).containerStatuses[0]!;
      for (const term of [s.state.terminated, s.lastState.terminated]) if (term?.containerID) runs.set(term.containerID, term);
      const last = seen[seen.length - 1];
      const reason = s.state.waiting?.reason ?? (s.state.running ? "running" : s.state.terminated?.reason);
      const message = s.state.waiting?.message;
      if (!last || last.restartCount !== s.restartCount || last.reason !== reason || last.message !== message) {
        seen.push({ t: Date.now() - t0, restartCount: s.restartCount, ...(reason ? { reason } : {}), ...(message ? { message } : {}) });
      }
      await sleep(20);
    }
    result.seen = seen;
    const ordered = [...runs.entries()].sort(([a], [b]) => Number(a.split("/").pop()) - Number(b.split("/").pop())).map(([, r]) => r);
    result.gaps = ordered.slice(1).map((r, i) => Date.parse(r.startedAt!) - Date.parse(ordered[i]!.finishedAt));
    result.final = (await rt.status(p)).containerStatuses[0];
    result.previous = await text(await rt.logs(p, "c0", { previous: true }));
    await rt.cleanup(p.metadata.uid);
    break;
  }
  case "exec": {
    const p = pod("exec", [{ command: ["sleep", "600"], env: [{ name: "GREETING", value: "hello" }, { name: "FROM_SECRET", valueFrom: {} }] }]);
    await rt.sync(p, { env: { c0: { FROM_SECRET: "s3cr3t" } } });
    result.exit7 = await run(p, ["sh", "-c", "exit 7"]);
    result.echo = await run(p, ["sh", "-c", "echo $GREETING $FROM_SECRET $HOSTNAME; hostname; cat /etc/hosts"]);
    result.stdin = await run(p, ["cat"], "piped\n");
    result.missing = await run(p, ["no-such-command"]);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await run(p, ["true"]);
      times.push(performance.now() - t);
    }
    result.times = times;
    await rt.cleanup(p.metadata.uid);
    break;
  }
  case "tty": {
    const p = pod("tty", [{ command: ["sh"], tty: true, stdin: true }]);
    await rt.sync(p);
    const a = await rt.attach(p, "c0");
    a.resize(100, 40);
    await sleep(100);
    const seen = readUntil(a, /40 100/);
    a.stdin!.write("stty size\n");
    result.size = await seen;
    // The size given at the start is the terminal's before the command runs (no resize race).
    const e = await rt.exec(p, "c0", ["sh", "-c", "stty size; exit 5"], { tty: true, size: { width: 120, height: 33 } });
    result.execOut = await text(e.stdout);
    result.execCode = await e.exit;
    const exited = a.exit;
    a.stdin!.write("exit 4\n");
    result.attachExit = await exited;
    result.status = await until(p, (s) => s.containerStatuses[0]!.restartCount >= 1 || s.containerStatuses[0]!.state.waiting !== undefined);
    await rt.cleanup(p.metadata.uid);
    break;
  }
  case "isolation": {
    const plain = pod("plain", [{ command: ["sleep", "600"] }]);
    const priv = pod("priv", [{ command: ["sleep", "600"], securityContext: { privileged: true } }], { hostPID: true });
    await rt.sync(plain);
    await rt.sync(priv);
    const probe = "ps -eo comm= | sort | uniq | tr '\\n' ' '; echo; grep Cap[EB] /proc/self/status | tr '\\n' ' '; echo; cat /proc/self/mountinfo | awk '{print $5}' | tr '\\n' ' '; echo; ip -o addr show eth0 2>/dev/null | awk '{print $4}'";
    result.plain = await run(plain, ["sh", "-c", probe]);
    result.priv = await run(priv, ["sh", "-c", probe]);
    result.mountAttempt = await run(plain, ["sh", "-c", "mount -t tmpfs x /mnt"]);
    result.ping = await run(plain, ["sh", "-c", `ping -c1 -W2 ${(await rt.status(priv)).podIP}`]);
    result.status = await rt.status(plain);
    await rt.cleanup(plain.metadata.uid);
    await rt.cleanup(priv.metadata.uid);
    break;
  }
  case "volumes": {
    const p = pod("vol", [{ command: ["sleep", "600"], volumeMounts: [{ name: "s", mountPath: "/etc/s", readOnly: true }, { name: "h", mountPath: "/host" }] }], {
      volumes: [{ name: "s", secret: {} }, { name: "h", hostPath: { path: "/var/lib/k-e2e", type: "DirectoryOrCreate" } }],
    });
    const inputs = (v: string): PodInputs => ({ volumes: { s: { token: v, "nested/ca.crt": `ca-${v}` } } });
    await rt.sync(p, inputs("one"));
    result.before = await run(p, ["sh", "-c", "cat /etc/s/token; echo; cat /etc/s/nested/ca.crt; echo; ls -a /etc/s | tr '\\n' ' '; echo host > /host/x"]);
    await rt.sync(p, inputs("two"));
    result.after = await run(p, ["sh", "-c", "cat /etc/s/token; echo; cat /etc/s/nested/ca.crt; echo > /etc/s/new"]);
    result.hostFile = readFileSync("/var/lib/k-e2e/x", "utf8");
    await rt.cleanup(p.metadata.uid);
    break;
  }
  case "crash-child": {
    const a = pod("adopt-a", [{ command: ["sleep", "600"] }, { name: "t", command: ["sh"], tty: true, stdin: true }]);
    const b = pod("adopt-b", [{ command: ["sh", "-c", "while true; do echo tick; sleep 0.2; done"] }], { shareProcessNamespace: true });
    for (const x of [a, b]) await rt.sync(x);
    const pids: number[] = [];
    for (const x of [a, b]) {
      for (const c of (await rt.status(x)).containerStatuses) if (!c.state.running) throw new Error(`${c.name} not running`);
    }
    for (const d of readdirSync(`${stateDir}/records`)) {
      const r = JSON.parse(readFileSync(`${stateDir}/records/${d}`, "utf8")) as { kind: string; process?: { pid: number } };
      if (r.kind === "process" && r.process) pids.push(r.process.pid);
    }
    process.stdout.write(`ready ${JSON.stringify({ pods: [a, b], pids })}\n`);
    setInterval(() => undefined, 60_000);
    break;
  }
  case "crash": {
    const child = spawn(process.execPath, ["--import", "tsx", process.argv[1]!, stateDir, "crash-child"], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve) => {
      let buf = "";
      child.stdout.on("data", (d) => {
        buf += String(d);
        const m = /ready (.*)\n/.exec(buf);
        if (m) resolve(m[1]!);
      });
    });
    const { pods, pids } = JSON.parse(line) as { pods: Pod[]; pids: number[] };
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const allPids = [...pids];
    result.listed = (await rt.list()).map((x) => x.pod.metadata.name).sort();
    for (const p of pods) {
      const before = await rt.status(p);
      const after = await rt.sync(p);
      result[`adopted-${p.metadata.name}`] = after.containerStatuses.map((c) => ({ running: !!c.state.running, restarts: c.restartCount, same: c.containerID === before.containerStatuses.find((x) => x.name === c.name)?.containerID }));
    }
    // The shim logs on its own while no runtime runs: wait (briefly) for three ticks to be there.
    let ticks: string[] = [];
    for (let i = 0; i < 100 && ticks.length < 3; i++) {
      ticks = (await text(await rt.logs(pods[1]!, "c0", { tail: 3 }))).split("\n").filter(Boolean);
      if (ticks.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    result.logsAfterCrash = ticks;
    for (const d of readdirSync(`${stateDir}/pods`)) {
      for (const c of readdirSync(`${stateDir}/pods/${d}/containers`)) {
        for (const at of readdirSync(`${stateDir}/pods/${d}/containers/${c}`)) {
          try {
            allPids.push(Number(readFileSync(`${stateDir}/pods/${d}/containers/${c}/${at}/exit.pid`, "utf8")));
          } catch {
            // no process
          }
        }
      }
    }
    const containerPids = allPids.filter((x) => !pids.includes(x));
    const mntns = new Set(containerPids.map((pid) => { try { return readlinkSync(`/proc/${pid}/ns/mnt`); } catch { return ""; } }).filter(Boolean));
    for (const p of pods) await rt.kill(p, 1);
    for (const p of pods) await rt.cleanup(p.metadata.uid);
    result.leftovers = leftovers(allPids);
    result.mounts = (await mountPoints()).filter((m) => m.startsWith(stateDir) || m.startsWith("/run/netns/gk-pod"));
    result.processesInContainerMountNamespaces = readdirSync("/proc").filter((x) => /^\d+$/.test(x)).filter((x) => { try { return mntns.has(readlinkSync(`/proc/${x}/ns/mnt`)); } catch { return false; } });
    result.records = readdirSync(`${stateDir}/records`).map(decodeURIComponent).filter((r) => !r.includes("cbr0"));
    result.checked = allPids.length;
    break;
  }
  default:
    throw new Error(`unknown scenario ${scenario}`);
}
rt.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
