// The supervisor process of a landscape (`gardener-local up` starts it detached): cleans up what a
// crashed run left, builds the networks, starts the components under a Supervisor, creates the
// objects, kubeconfigs and worker machines, reports progress in logs/supervisor.log and the phase in
// status.json, then keeps the components running until SIGTERM.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Namespaces } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { MachineSummaries, type LinuxHost } from "../host/index.ts";
import { DEFAULT_NODE_CIDR } from "../provider-local/network/networks.ts";
import { adminKubeconfigOf, componentContext, prepareHost, type RunOptions, seedNodeName, shootNodeName, startWorkers, writeKubeconfigs } from "./bringup.ts";
import * as c from "./components.ts";
import { PROJECT_NAMESPACE, SEED_WORKERS, SHOOT, SHOOT_POD_CIDR, SHOOT_TECHNICAL_ID, WORKERS } from "./layout.ts";
import { clusterOf } from "./nodetokens.ts";
import { publishOperatorTerminalAccess } from "./operator-terminals.ts";
import { publishDashboardReader } from "./dashboard-reader.ts";
import { dashboard, publishSeedHost, terminalControllerManager, terminalsReady, writeDashboardConfig, writeMemberToken, writeTerminalCertificates } from "./terminals.ts";
import { applySeedCRDs, createGardenObjects, createShoot, publishShootCredentials, publishShootKubeconfig, reportShootReconciled } from "./objects.ts";
import { apiServerClient, kubeletsServing, nodeKeysApplied, nodesRegistered, waitFor, workloadsSchedulable } from "./readiness.ts";
import { writeStatus, type LandscapeStatus } from "./status.ts";
import { Supervisor } from "./supervisor.ts";
import { gardenUrlForPods, startGardenRelay } from "./gardenrelay.ts";
import { LANDSCAPE_VPN_HA, startVpn, VPN_SERVER_ADDRESS } from "./vpn.ts";
import { egressDialer, egressWritten } from "./vpnegress.ts";
import { ANNOTATION_HA_VPN, isVpnHighAvailability, vpnShootRanges } from "../api/gardencore/vpn.ts";
import { parsePositiveDuration } from "../utils/duration.ts";

/** Shared by the run and its failure path: the phase a failure sets stays. */
type Status = LandscapeStatus;

/** How the run hands its stop function out and reports that everything stopped. */
export interface RunHooks {
  onStop(stop: (reason: string) => void): void;
  /** Every component has stopped (after a signal or a failure). */
  onStopped(): void;
}

export async function runLandscape(o: RunOptions, status: Status, hooks: RunHooks): Promise<void> {
  const { layout, log } = o;
  for (const d of [layout.logs, layout.run, layout.providerState]) mkdirSync(d, { recursive: true });
  const report = (): void => writeStatus(layout, status);
  report();

  const prepared = await prepareHost(o);
  const ctx = componentContext(o, prepared.hostAddress);
  // Tests that kill components on purpose shorten the restart backoff (default 30 s).
  const maxRestartBackoff = process.env[c.MAX_RESTART_BACKOFF_ENV];
  const supervisor = new Supervisor({ pidDir: layout.run, log, ...(maxRestartBackoff ? { maxBackoffMs: parsePositiveDuration(maxRestartBackoff) } : {}) });
  if (maxRestartBackoff) log(`restart backoff at most ${maxRestartBackoff}`);
  const running: Running = { stopping: false, inProcess: [] };
  const stop = stopper(supervisor, status, report, running, log, hooks.onStopped);
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  hooks.onStop(stop);
  refreshStatus(supervisor, prepared.host, status, report, running);

  writeMemberToken(layout);
  // The shoot API server's egress files come from the gardenlet's Secrets: an earlier `up` left them, or it is
  // restarted with them once the gardenlet wrote them (startVpn).
  const shootApiServerHasEgress = egressWritten(layout);
  const { garden, seed, shoot } = await startApiServers(o, supervisor, ctx, shootApiServerHasEgress);
  supervisor.start(c.vpnSeedProxy(ctx));
  await writeKubeconfigs(o, prepared.networks);
  await writeTerminalCertificates(layout);

  await applySeedCRDs(seed);
  await createGardenObjects(garden);
  supervisor.start(c.controllerManager(ctx));
  await waitFor("project namespace garden-local", async () => ((await garden.get(Namespaces, { name: PROJECT_NAMESPACE })) ? true : undefined));
  log("project local ready");
  // Gardener's default node network: room for about a thousand machines (a bridge's ports) per shoot.
  // A shoot of an earlier run keeps the node network it has.
  const shootObject = await createShoot(garden, seed, DEFAULT_NODE_CIDR, SHOOT_POD_CIDR);
  const nodeCidr = shootObject.spec.networking?.nodes ?? DEFAULT_NODE_CIDR;
  await publishShootKubeconfig(garden, readFileSync(layout.shootKubeconfig, "utf8"));
  const shootApi = clusterOf(readFileSync(layout.shootKubeconfig, "utf8"));
  const shootPki = join(layout.apiServerDir("shoot"), "pki");
  await publishShootCredentials(garden, { server: shootApi.server, clusterCaPem: shootApi.caPem, clientCa: { certPem: readFileSync(join(shootPki, "ca.crt"), "utf8"), keyPem: readFileSync(join(shootPki, "ca.key"), "utf8") } });
  supervisor.start(c.gardenlet(ctx));
  supervisor.start(c.providerLocal(ctx));
  // The seed hosts operators' terminals through a kubeconfig Secret (it is no ManagedSeed).
  await publishSeedHost(garden, layout);
  await publishOperatorTerminalAccess(garden);
  await publishDashboardReader(garden, layout, o.ports);
  // Garden terminals' pods reach the garden through the relay on the host's public address (started with the workers).
  const gardenForPods = gardenUrlForPods(prepared.hostAddress, o.ports);
  writeDashboardConfig(layout, gardenForPods);
  supervisor.start(terminalControllerManager(ctx));
  supervisor.start(dashboard(ctx));
  await prepared.networks.ensureNodeNetwork(SHOOT_TECHNICAL_ID, nodeCidr);
  log(`shoot local created; node network ${nodeCidr}`);
  const shootCidrs = vpnShootRanges(shootObject);
  if (isVpnHighAvailability(shootObject) !== LANDSCAPE_VPN_HA) throw new Error(`shoot ${SHOOT}: its annotation ${ANNOTATION_HA_VPN} must be "${LANDSCAPE_VPN_HA}"`);
  const restartShootApiServer = async (): Promise<void> => {
    await supervisor.restart(c.shootApiServer(ctx, true));
    (await apiServerClient("shoot", adminKubeconfigOf(layout, "shoot"))).close();
  };
  const vpn = await startVpn({
    layout, networks: prepared.networks, seed, shoot, hostAddress: prepared.hostAddress, nodeCidr, shootCidrs, highAvailability: LANDSCAPE_VPN_HA,
    shootApiServerHasEgress, restartShootApiServer, log,
  });
  running.inProcess.push(() => vpn.stop());
  log(`reversed VPN: vpn-seed-server at ${VPN_SERVER_ADDRESS}, vpn-shoot-client at ${vpn.clientAddress}`);

  await startWorkers(o, prepared, { seed, shoot }, shootObject, vpn.clientAddress);
  const relay = await startGardenRelay(prepared.networks, prepared.hostAddress, o.ports);
  running.inProcess.push(() => relay.stop());
  const clusters = { garden, seed, shoot, shootNodes: WORKERS.map(shootNodeName), seedNodes: SEED_WORKERS.map(seedNodeName) };
  await nodesRegistered(clusters, log);
  await nodeKeysApplied(clusters, log);
  await workloadsSchedulable(clusters, log);
  await kubeletsServing(clusters, layout, await egressDialer(layout), log);
  // A member's first web terminal works: the dashboard, the webhooks and the controller answer.
  await terminalsReady(layout, o.ports, log, undefined, gardenForPods);
  await reportShootReconciled(garden, Date.now());
  for (const cl of [garden, seed, shoot]) cl.close();
  status.phase = "Ready";
  status.components = supervisor.status();
  report();
  log("landscape ready");
}

/** Starts the three API servers, each followed by its scheduler once it answers; returns their admin clients. */
async function startApiServers(o: RunOptions, supervisor: Supervisor, ctx: c.ComponentContext, shootEgress: boolean): Promise<Record<"garden" | "seed" | "shoot", Client>> {
  for (const spec of [c.gardenApiServer(ctx), c.seedApiServer(ctx), c.shootApiServer(ctx, shootEgress)]) supervisor.start(spec);
  const clients: Partial<Record<"garden" | "seed" | "shoot", Client>> = {};
  for (const name of ["garden", "seed", "shoot"] as const) {
    clients[name] = await apiServerClient(name, adminKubeconfigOf(o.layout, name));
    o.log(`${name} API server ready`);
    // Beside each API server its scheduler (the API server wrote scheduler.kubeconfig before serving).
    supervisor.start(c.scheduler(ctx, name));
  }
  return { garden: clients.garden!, seed: clients.seed!, shoot: clients.shoot! };
}

/** Whether the run is stopping, and what this process runs itself (the VPN's supervised processes). */
interface Running {
  stopping: boolean;
  inProcess: (() => Promise<void>)[];
}

/** The stop function: stops the components once (a failure's phase stays), then calls stopped. */
function stopper(supervisor: Supervisor, status: Status, report: () => void, running: Running, log: (line: string) => void, stopped: () => void): (reason: string) => void {
  return (reason) => {
    if (running.stopping) return;
    running.stopping = true;
    log(`${reason}: stopping components`);
    const failed = status.phase === "Failed";
    if (!failed) status.phase = "Stopping";
    report();
    void Promise.all([supervisor.stop(), ...running.inProcess.map((s) => s().catch(() => undefined))]).finally(() => {
      if (!failed) status.phase = "Stopped";
      status.components = supervisor.status();
      report();
      stopped();
    });
  };
}

/**
 * Every second, status.json when a component's or a machine's state changed (until stopping). The machines
 * are followed incrementally (host's MachineSummaries): with a thousand of them, a refresh reads only what
 * changed, and one refresh never overlaps the next.
 */
function refreshStatus(supervisor: Supervisor, host: LinuxHost, status: Status, report: () => void, running: Running): void {
  const machines = new MachineSummaries(host.ctx);
  let busy = false;
  let reported = "";
  const refresh = setInterval(() => {
    if (running.stopping || busy) return;
    busy = true;
    void machines
      .refresh()
      .then((machinesChanged) => {
        if (running.stopping) return;
        const components = supervisor.status();
        const text = JSON.stringify(components);
        if (!machinesChanged && text === reported) return;
        reported = text;
        status.components = components;
        status.machines = machines.list();
        report();
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 1000);
  refresh.unref();
  running.inProcess.push(() => {
    clearInterval(refresh);
    machines.close();
    return Promise.resolve();
  });
}

/**
 * Entry point of the supervisor process. Resolves with the process's exit code once the landscape has
 * stopped: 0 after a signal (or a failure once components ran: the failure is reported in status.json,
 * then everything stops), 1 for a failure before any component started.
 */
export async function superviseMain(o: RunOptions): Promise<number> {
  writeFileSync(o.layout.supervisorPid, `${process.pid}\n`);
  const status: Status = { phase: "Starting", pid: process.pid, components: [], machines: [] };
  let stop: ((reason: string) => void) | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  try {
    // A signal during start-up stops the components; the start-up's pending wait is not waited out.
    await Promise.race([runLandscape(o, status, { onStop: (s) => (stop = s), onStopped: () => stopped() }), done]);
  } catch (err) {
    o.log(`failed: ${(err as Error).message}`);
    status.phase = "Failed";
    status.error = (err as Error).message;
    writeStatus(o.layout, status);
    if (!stop) return 1;
    stop("failure");
  }
  await done;
  return 0;
}
