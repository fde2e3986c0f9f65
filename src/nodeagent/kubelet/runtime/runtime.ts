// PodRuntime: turns pod specs into containers on this node (host/containers.ts) and back. A kubelet loop
// drives it: sync (create or converge), kill, status, logs, exec, attach, list (adoption after a restart)
// and cleanup. Everything it makes is named after the pod's uid and recorded on disk (pods/<uid>/ in its
// state directory, and host/ records), so a new runtime after a SIGKILL adopts running pods with sync or
// removes them with cleanup.
import { type FSWatcher, existsSync, watch } from "node:fs";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { attachContainer, containerInfo, prepareContainers, refreshContainerInfo, execInContainer, removeContainer, startContainer, stopContainer, type ContainerInfo, type ContainerStream } from "../../../host/containers.ts";
import type { LinuxHost } from "../../../host/index.ts";
import { KUBELET_BACKOFF, nextRestart, type BackoffPolicy } from "./backoff.ts";
import { logStream, readLogLines } from "./logs.ts";
import { PodNetwork } from "./network.ts";
import { containerEnv, containerMounts } from "./container-config.ts";
import { BUILTIN_PROFILES, commandLine, profileFor, type ToolboxProfile } from "./profiles.ts";
import { phaseOf, statusOf, terminatedOf, type ContainerRecord } from "./status.ts";
import type { Container, Pod, PodInputs, PodRuntimeStatus } from "./types.ts";
import { prepareVolume } from "./volumes.ts";

export interface PodRuntimeOptions {
  host: LinuxHost;
  /** The node's pod range, e.g. "10.96.1.0/24". */
  podCIDR: string;
  /** The cluster's API server as pods reach it (kubernetes.default.svc, KUBERNETES_SERVICE_*). */
  apiServer?: { host: string; port: number };
  profiles?: readonly ToolboxProfile[];
  backoff?: BackoffPolicy;
  /** How often running containers are checked for their end (default 250 ms). */
  pollMs?: number;
}

interface PodRecord {
  pod: Pod;
  inputs: PodInputs;
  ip?: string;
  killed?: boolean;
}

interface PodState {
  rec: PodRecord;
  containers: Map<string, ContainerRecord>;
  infos: Map<string, ContainerInfo>;
  sandbox?: ContainerInfo;
  /** The pod's network was set up by this runtime (a converge does not check it again). */
  netReady?: boolean;
  queue: Promise<void>;
  timer?: NodeJS.Timeout;
  /** Per container, the watch of its directory for its exit file. */
  exits?: Map<string, FSWatcher>;
}

/** The node's directories no container sees (the node agent's credentials and state, the SSH host keys), beside the runtime's own state. */
const NODE_PRIVATE_DIRS = ["/etc/gardener-node-agent", "/var/lib/gardener-node-agent", "/etc/ssh"];
const UID_RE = /^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

export class PodRuntime {
  private readonly host: LinuxHost;
  private readonly net: PodNetwork;
  private readonly pods = new Map<string, PodState>();
  private readonly profiles: readonly ToolboxProfile[];
  private readonly backoff: BackoffPolicy;
  private readonly dir: string;
  private poller?: NodeJS.Timeout;
  private recorded?: Promise<Map<string, string>>;
  private readonly listeners = new Set<(uid: string) => void>();

  constructor(private readonly options: PodRuntimeOptions) {
    this.host = options.host;
    this.net = new PodNetwork(options.host, options.podCIDR);
    this.profiles = options.profiles ?? BUILTIN_PROFILES;
    this.backoff = options.backoff ?? KUBELET_BACKOFF;
    this.dir = join(options.host.stateDir, "pods");
  }

  /** Makes what every pod needs (the container helpers, the pod bridge), so the first pod does not wait for it. */
  async prepare(): Promise<void> {
    await Promise.all([prepareContainers(this.host.ctx), this.net.ensureBridge()]);
  }

  /** Stops the runtime's own timers; pods keep running (a new runtime adopts them). */
  close(): void {
    clearInterval(this.poller);
    for (const p of this.pods.values()) this.quiet(p);
  }

  /**
   * Calls `listener` with a pod's uid after the runtime changed the pod on its own (a container ended, was
   * started after it, restarted after back-off), so its status is written at once rather than at the next relist.
   */
  onChange(listener: (uid: string) => void): void {
    this.listeners.add(listener);
  }

  private quiet(p: PodState): void {
    clearTimeout(p.timer);
    for (const w of p.exits?.values() ?? []) w.close();
    p.exits?.clear();
  }

  /** Converges the pod after something of it changed, then tells the listeners. */
  private reconverge(uid: string, p: PodState): void {
    void this.serial(p, () => this.converge(uid, p)).then(
      () => {
        for (const l of this.listeners) l(uid);
      },
      (err: unknown) => process.stderr.write(`converge ${uid}: ${String(err)}\n`),
    );
  }

  /** Converges the pod as soon as the container's exit file appears (the poller is the fallback). */
  private watchExit(uid: string, p: PodState, name: string, dir: string): void {
    p.exits ??= new Map();
    p.exits.get(name)?.close();
    p.exits.delete(name);
    try {
      const w = watch(dir, (_event, file) => {
        if (file !== "exit") return;
        w.close();
        if (p.exits?.get(name) === w) p.exits.delete(name);
        if (!p.rec.killed) this.reconverge(uid, p);
      });
      w.on("error", () => w.close());
      p.exits.set(name, w);
    } catch {
      // no inotify watch left: the poller finds the end
      return;
    }
    // Ended before the watch began.
    if (existsSync(join(dir, "exit"))) this.reconverge(uid, p);
  }

  private podDir(uid: string): string {
    if (!UID_RE.test(uid)) throw new Error(`invalid pod uid ${JSON.stringify(uid)}`);
    return join(this.dir, uid);
  }
  private shimName(uid: string, name: string, attempt: number | "sandbox"): string {
    return attempt === "sandbox" ? `pod.${uid}.sandbox` : `pod.${uid}.${name}.${attempt}`;
  }
  private attemptDir(uid: string, name: string, attempt: number | "sandbox"): string {
    return attempt === "sandbox" ? join(this.podDir(uid), "sandbox") : join(this.podDir(uid), "containers", name, String(attempt));
  }
  private logFile(uid: string, name: string, attempt: number): string {
    return join(this.podDir(uid), "logs", name, `${attempt}.log`);
  }

  /** Pods recorded on this node (also those of an earlier runtime), for adoption or cleanup. */
  async list(): Promise<{ uid: string; pod: Pod; podIP?: string }[]> {
    const out: { uid: string; pod: Pod; podIP?: string }[] = [];
    for (const uid of await readdir(this.dir).catch(() => [] as string[])) {
      const rec = await this.readRecord(uid);
      if (rec) out.push({ uid, pod: rec.pod, ...(rec.ip ? { podIP: rec.ip } : {}) });
    }
    return out;
  }

  /**
   * Addresses of the pods recorded on disk (also an earlier runtime's), read once rather than for every new
   * pod (that made starting n pods read n² records); this runtime's own pods are in `pods`, and cleanup
   * forgets an address here.
   */
  private recordedIPs(): Promise<Map<string, string>> {
    this.recorded ??= this.list().then((xs) => new Map(xs.flatMap((x): [string, string][] => (x.podIP ? [[x.uid, x.podIP]] : []))));
    return this.recorded;
  }

  private async readRecord(uid: string): Promise<PodRecord | undefined> {
    try {
      return JSON.parse(await readFile(join(this.podDir(uid), "pod.json"), "utf8")) as PodRecord;
    } catch {
      return undefined;
    }
  }

  private async save(uid: string, p: PodState): Promise<void> {
    const dir = this.podDir(uid);
    await writeFile(join(dir, "pod.json.tmp"), JSON.stringify(p.rec));
    await rename(join(dir, "pod.json.tmp"), join(dir, "pod.json"));
    await writeFile(join(dir, "containers.json"), JSON.stringify(Object.fromEntries(p.containers)));
  }

  /** Loads a pod this runtime does not know yet from disk (adoption), or undefined. */
  private async load(uid: string): Promise<PodState | undefined> {
    const known = this.pods.get(uid);
    if (known) return known;
    const rec = await this.readRecord(uid);
    if (!rec) return undefined;
    const saved = JSON.parse(await readFile(join(this.podDir(uid), "containers.json"), "utf8").catch(() => "{}")) as Record<string, ContainerRecord>;
    const p: PodState = { rec, containers: new Map(Object.entries(saved)), infos: new Map(), queue: Promise.resolve() };
    for (const [name, c] of p.containers) {
      if (c.attempt >= 0) p.infos.set(name, await containerInfo(this.host.ctx, this.shimName(uid, name, c.attempt), this.attemptDir(uid, name, c.attempt)));
    }
    if (existsSync(this.attemptDir(uid, "", "sandbox"))) p.sandbox = await containerInfo(this.host.ctx, this.shimName(uid, "", "sandbox"), this.attemptDir(uid, "", "sandbox"));
    this.pods.set(uid, p);
    return p;
  }

  private serial(p: PodState, fn: () => Promise<void>): Promise<void> {
    const next = p.queue.then(fn);
    p.queue = next.catch(() => undefined);
    return next;
  }

  /** Creates the pod or converges it (starts what should run, restarts after back-off); adopts a recorded one. */
  async sync(pod: Pod, inputs: PodInputs = {}): Promise<PodRuntimeStatus> {
    const uid = pod.metadata.uid;
    const dir = this.podDir(uid);
    let p = await this.load(uid);
    if (!p) {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      p = { rec: { pod, inputs }, containers: new Map(), infos: new Map(), queue: Promise.resolve() };
      this.pods.set(uid, p);
    }
    const state = p;
    state.rec.pod = pod;
    state.rec.inputs = inputs;
    this.startPoller();
    await this.serial(state, () => this.converge(uid, state));
    return this.status(pod);
  }

  private startPoller(): void {
    this.poller ??= setInterval(() => void this.poll(), this.options.pollMs ?? 250);
  }

  private async poll(): Promise<void> {
    for (const [uid, p] of this.pods) {
      if (p.rec.killed) continue;
      const ended = [...p.infos.values()].some((i) => i.running && (existsSync(join(i.dir, "exit")) || (i.shim !== undefined && !existsSync(`/proc/${i.shim.pid}`))));
      if (ended) this.reconverge(uid, p);
    }
  }

  private async setUpPod(uid: string, p: PodState): Promise<void> {
    const dir = this.podDir(uid);
    const { pod } = p.rec;
    if (!pod.spec.hostNetwork && !p.rec.ip) {
      const used = new Set((await this.recordedIPs()).values());
      for (const other of this.pods.values()) if (other.rec.ip) used.add(other.rec.ip);
      p.rec.ip = this.net.allocate(used);
      await this.save(uid, p);
    }
    if (!pod.spec.hostNetwork && !p.netReady) {
      await this.net.setUp(uid, p.rec.ip!);
      p.netReady = true;
    }
    const hostname = pod.spec.hostname ?? pod.metadata.name;
    const api = this.options.apiServer;
    const hosts = [
      "127.0.0.1\tlocalhost",
      "::1\tlocalhost ip6-localhost ip6-loopback",
      ...(p.rec.ip ? [`${p.rec.ip}\t${hostname}`] : []),
      ...(api ? [`${api.host}\tkubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local`] : []),
    ];
    await mkdir(join(dir, "etc"), { recursive: true });
    await writeFile(join(dir, "etc", "hosts"), `${hosts.join("\n")}\n`);
    await writeFile(join(dir, "etc", "hostname"), `${hostname}\n`);
    for (const v of pod.spec.volumes ?? []) await prepareVolume(dir, v, p.rec.inputs);
    if (pod.spec.shareProcessNamespace && !pod.spec.hostPID && !(p.sandbox?.running ?? false)) {
      const sdir = this.attemptDir(uid, "", "sandbox");
      await rm(sdir, { recursive: true, force: true });
      p.sandbox = await startContainer(this.host.ctx, {
        name: this.shimName(uid, "", "sandbox"), dir: sdir, owner: `pod/${uid}`, pid: "new", hostname, privileged: false, mounts: [],
        command: ["sleep", "infinity"], env: [], ...(pod.spec.hostNetwork ? {} : { netns: this.net.netns(uid) }),
      });
    }
  }

  private async converge(uid: string, p: PodState): Promise<void> {
    if (p.rec.killed) return;
    clearTimeout(p.timer);
    await this.setUpPod(uid, p);
    const { spec } = p.rec.pod;
    const policy = spec.restartPolicy ?? "Always";
    for (const c of spec.initContainers ?? []) {
      const r = await this.step(uid, p, c, policy === "Never" ? "Never" : "OnFailure");
      if (r !== "done") return this.save(uid, p);
    }
    for (const c of spec.containers) await this.step(uid, p, c, policy);
    await this.save(uid, p);
  }

  /** One container's next step; "done" when it completed successfully and will not run again. */
  private async step(uid: string, p: PodState, c: Container, policy: string): Promise<"done" | "running" | "waiting" | "failed"> {
    const rec = p.containers.get(c.name) ?? { attempt: -1, backoffMs: 0 };
    p.containers.set(c.name, rec);
    let info = p.infos.get(c.name);
    if (info) {
      info = await containerInfo(this.host.ctx, info.name, info.dir);
      p.infos.set(c.name, info);
      if (info.running) return "running";
      const t = terminatedOf(info, "", "");
      if (!t) return "running";
      if (t.exitCode === 0 && policy !== "Always") return "done";
      if (policy === "Never") return "failed";
      const ranMs = info.startedAt ? Date.parse(t.finishedAt) - Date.parse(info.startedAt) : 0;
      if (rec.restartAt === undefined) {
        const n = nextRestart(this.backoff, rec.backoffMs, ranMs, Date.parse(t.finishedAt));
        rec.restartAt = n.at;
        rec.backoffMs = n.backoffMs;
      }
      if (Date.now() < rec.restartAt) {
        this.wake(uid, p, rec.restartAt - Date.now());
        return "waiting";
      }
    }
    await this.start(uid, p, c, rec);
    return "running";
  }

  private wake(uid: string, p: PodState, ms: number): void {
    clearTimeout(p.timer);
    p.timer = setTimeout(() => this.reconverge(uid, p), Math.max(10, ms));
  }

  private async start(uid: string, p: PodState, c: Container, rec: ContainerRecord): Promise<void> {
    const { pod } = p.rec;
    const profile = profileFor(c.image, this.profiles);
    if (!profile) {
      const again = rec.waiting !== undefined;
      rec.waiting = { reason: again ? "ImagePullBackOff" : "ErrImagePull", message: `image "${c.image}" maps to no toolbox profile` };
      this.wake(uid, p, this.backoff.initialMs);
      return;
    }
    delete rec.waiting;
    rec.imageID = `toolbox://${profile.name}`;
    const previous = p.infos.get(c.name);
    if (previous) {
      const t = terminatedOf(previous, `toolbox://${uid}/${c.name}/${rec.attempt}`, "");
      if (t) rec.last = t;
      await removeContainer(this.host.ctx, previous.name, previous.dir).catch(() => undefined);
    }
    const attempt = rec.attempt + 1;
    const dir = this.podDir(uid);
    const hostname = pod.spec.hostname ?? pod.metadata.name;
    const mounts = containerMounts(pod, c, dir);
    const resolved = p.rec.inputs.env?.[c.name];
    const env = containerEnv(c, { profile, hostname, ...(this.options.apiServer ? { apiServer: this.options.apiServer } : {}), ...(resolved ? { resolved } : {}) });
    await mkdir(join(dir, "logs", c.name), { recursive: true });
    const pidMode = pod.spec.hostPID ? ("node" as const) : p.sandbox?.init ? { join: p.sandbox.init } : ("new" as const);
    const info = await startContainer(this.host.ctx, {
      name: this.shimName(uid, c.name, attempt),
      dir: this.attemptDir(uid, c.name, attempt),
      owner: `pod/${uid}`,
      ...(pod.spec.hostNetwork ? {} : { netns: this.net.netns(uid) }),
      pid: pidMode,
      hostname,
      privileged: c.securityContext?.privileged === true,
      mounts,
      hide: [...NODE_PRIVATE_DIRS, this.host.stateDir],
      command: commandLine(profile, c.command, c.args),
      env: [...env],
      ...(c.workingDir ? { workingDir: c.workingDir } : {}),
      tty: c.tty === true,
      stdin: c.stdin === true,
      stdinOnce: c.stdinOnce === true,
      logFile: this.logFile(uid, c.name, attempt),
    });
    await writeFile(join(info.dir, "env.json"), JSON.stringify([...env]));
    rec.attempt = attempt;
    delete rec.restartAt;
    p.infos.set(c.name, info);
    if (info.running) this.watchExit(uid, p, c.name, info.dir);
    // The previous attempt's log stays for `logs --previous`; older ones go. Only now, after the new
    // attempt is recorded: until then `--previous` still means the attempt before the last one.
    if (attempt >= 2) await rm(this.logFile(uid, c.name, attempt - 2), { force: true });
    // Ended already (during setup or at once): the poller only watches running containers.
    if (!info.running) this.wake(uid, p, 0);
  }

  /** Container statuses as the kubelet writes them, and the phase they imply. */
  async status(pod: Pod): Promise<PodRuntimeStatus> {
    const uid = pod.metadata.uid;
    const p = await this.load(uid);
    const policy = pod.spec.restartPolicy ?? "Always";
    const one = async (c: Container, waitingReason: string) => {
      const rec = p?.containers.get(c.name) ?? { attempt: -1, backoffMs: 0 };
      let info = p?.infos.get(c.name);
      if (info) info = await refreshContainerInfo(this.host.ctx, info);
      const tail = info && !info.started && info.exit ? (await readLogLines(this.logFile(uid, c.name, rec.attempt), 5)).join("\n") : "";
      return statusOf(uid, c, rec, info, tail, waitingReason);
    };
    const init = await Promise.all((pod.spec.initContainers ?? []).map((c) => one(c, "PodInitializing")));
    const initDone = init.every((s) => s.state.terminated?.exitCode === 0);
    const main = await Promise.all(pod.spec.containers.map((c) => one(c, initDone ? "ContainerCreating" : "PodInitializing")));
    const status: PodRuntimeStatus = { uid, initContainerStatuses: init, containerStatuses: main, phase: phaseOf(init, main, policy, p?.rec.killed ?? false) };
    if (p?.rec.ip) status.podIP = p.rec.ip;
    return status;
  }

  private async infoOf(pod: Pod, container: string, previous = false): Promise<{ info?: ContainerInfo; rec: ContainerRecord; p: PodState }> {
    const p = await this.load(pod.metadata.uid);
    if (!p) throw new Error(`pod ${pod.metadata.namespace}/${pod.metadata.name} does not run on this node`);
    const rec = p.containers.get(container);
    if (!rec) throw new Error(`container ${container} is not valid for pod ${pod.metadata.name}`);
    const info = p.infos.get(container);
    if (previous || !info) return { rec, p };
    return { info: await containerInfo(this.host.ctx, info.name, info.dir), rec, p };
  }

  /** The container's output (as written, without the log format), optionally the previous attempt's, since a time, with timestamps, following. */
  async logs(pod: Pod, container: string, options: { follow?: boolean; previous?: boolean; tail?: number; sinceMs?: number; timestamps?: boolean } = {}): Promise<Readable> {
    const { rec, info } = await this.infoOf(pod, container, options.previous);
    const attempt = options.previous ? rec.attempt - 1 : rec.attempt;
    if (attempt < 0) throw new Error(`previous terminated container "${container}" in pod "${pod.metadata.name}" not found`);
    const file = this.logFile(pod.metadata.uid, container, attempt);
    const ended = async () => !info || !(await containerInfo(this.host.ctx, info.name, info.dir)).running;
    return logStream(file, {
      ...(options.tail !== undefined ? { tail: options.tail } : {}),
      ...(options.sinceMs !== undefined ? { sinceMs: options.sinceMs } : {}),
      timestamps: options.timestamps ?? false,
      follow: (options.follow ?? false) && !options.previous,
      ended,
    });
  }

  /** Throws what `exec` would throw before starting anything: the pod, the container, not running. */
  async checkExec(pod: Pod, container: string): Promise<void> {
    const { info } = await this.infoOf(pod, container);
    if (!info?.running) throw new Error(`container ${container} is not running`);
  }

  async exec(pod: Pod, container: string, command: string[], options: { tty?: boolean; stdin?: boolean; size?: { width: number; height: number } } = {}): Promise<ContainerStream> {
    const { info, p } = await this.infoOf(pod, container);
    if (!info?.running) throw new Error(`container ${container} is not running`);
    const c = [...(p.rec.pod.spec.containers ?? []), ...(p.rec.pod.spec.initContainers ?? [])].find((x) => x.name === container)!;
    const env = JSON.parse(await readFile(join(info.dir, "env.json"), "utf8").catch(() => "[]")) as [string, string][];
    const size = options.tty && options.size ? { size: options.size } : {};
    return execInContainer(this.host.ctx, info, command, { tty: options.tty ?? false, ...size, stdin: options.stdin ?? false, privileged: c.securityContext?.privileged === true, env });
  }

  async attach(pod: Pod, container: string): Promise<ContainerStream> {
    const { info } = await this.infoOf(pod, container);
    if (!info?.running) throw new Error(`container ${container} is not running`);
    return attachContainer(info);
  }

  /** Stops every container (SIGTERM and a terminal hangup, SIGKILL after gracePeriodSeconds); no restarts after. */
  async kill(pod: Pod, gracePeriodSeconds = pod.spec.terminationGracePeriodSeconds ?? 30): Promise<void> {
    const uid = pod.metadata.uid;
    const p = await this.load(uid);
    if (!p) return;
    p.rec.killed = true;
    this.quiet(p);
    await this.serial(p, async () => {
      await this.save(uid, p);
      const all = [...p.infos.values()];
      await Promise.all(all.map((i) => stopContainer(this.host.ctx, i.name, i.dir, gracePeriodSeconds * 1000)));
      if (p.sandbox) await stopContainer(this.host.ctx, p.sandbox.name, p.sandbox.dir, 0);
    });
  }

  /** Removes everything of the pod: processes, containers, its network namespace and veth, its directory. */
  async cleanup(uid: string): Promise<void> {
    const p = await this.load(uid);
    if (p) {
      p.rec.killed = true;
      this.quiet(p);
      await p.queue;
    }
    const cdir = join(this.podDir(uid), "containers");
    for (const name of await readdir(cdir).catch(() => [] as string[])) {
      for (const a of await readdir(join(cdir, name)).catch(() => [] as string[])) {
        await removeContainer(this.host.ctx, this.shimName(uid, name, Number(a)), join(cdir, name, a));
      }
    }
    await removeContainer(this.host.ctx, this.shimName(uid, "", "sandbox"), this.attemptDir(uid, "", "sandbox"));
    await this.net.tearDown(uid);
    await rm(this.podDir(uid), { recursive: true, force: true });
    await this.recorded?.then((m) => m.delete(uid));
    this.pods.delete(uid);
  }
}
