// The command lines of the landscape's components (all run from this checkout's bin/ with this node).
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { ComponentSpec } from "./supervisor.ts";
import { type Layout, type Ports, PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID } from "./layout.ts";
import { LANDSCAPE_VPN_HA, vpnServerAddresses } from "./vpn.ts";
import { egressSecretsDirOf, egressSelectorConfigOf } from "./vpnegress.ts";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));
export const bin = (name: string): string => join(REPO, "bin", `${name}.js`);

/** What of this checkout the node agent needs to run inside a worker (docs/machines.md). */
export function nodeAgentCode(): string[] {
  return ["bin", "src", "node_modules", "package.json", "tsconfig.json"].map((p) => join(REPO, p));
}

export interface ComponentContext {
  layout: Layout;
  ports: Ports;
  /** The host's address on the public network: the shoot API server binds and advertises it. */
  hostAddress: string;
  prefix: string;
  /** provider-local's `--public-cidr` (its default when unset). */
  publicCidr?: string;
  /** `--bastion-time-to-live` of the garden API server (a Go duration); its default (1h) when unset. */
  bastionTimeToLive?: string;
  /** `--node-monitor-grace-period` of the seed and shoot API servers (a Go duration); their default (40s) when unset. */
  nodeMonitorGracePeriod?: string;
  /** The gardenlet's `--ssh-keypair-pool-size`; its default when unset. */
  sshKeypairPoolSize?: string;
  /** provider-local's `--bastion-pool-size` (its default when unset). */
  bastionPoolSize?: string;
  /** The gardenlet's `--metrics-bind-address` (e.g. a benchmark reads its key pool's fill); none when unset. */
  gardenletMetricsAddress?: string;
}

/**
 * How `up` hands the Bastion time-to-live to the supervisor process (its command line belongs to
 * `gardener-local supervise`): the supervisor reads it from its environment.
 */
export const BASTION_TTL_ENV = "GARDENER_LOCAL_BASTION_TIME_TO_LIVE";
/** Likewise the node monitor grace period (tests of silent nodes shorten it). */
export const NODE_GRACE_ENV = "GARDENER_LOCAL_NODE_MONITOR_GRACE_PERIOD";
/** Likewise the longest wait before the supervisor restarts a component (tests that kill components on purpose shorten it). */
export const MAX_RESTART_BACKOFF_ENV = "GARDENER_LOCAL_MAX_RESTART_BACKOFF";
/** Likewise the gardenlet's key pool size (bench/rotation's back-to-back rotations want more pairs ready). */
export const SSH_KEYPAIR_POOL_SIZE_ENV = "GARDENER_LOCAL_SSH_KEYPAIR_POOL_SIZE";
export const BASTION_POOL_SIZE_ENV = "GARDENER_LOCAL_BASTION_POOL_SIZE";
export const GARDENLET_METRICS_ENV = "GARDENER_LOCAL_GARDENLET_METRICS_ADDRESS";

/** The supervisor's Bastion time-to-live: an explicit option first, else $GARDENER_LOCAL_BASTION_TIME_TO_LIVE; empty means unset. */
export function bastionTimeToLiveOf(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return option || env[BASTION_TTL_ENV] || undefined;
}

function node(layout: Layout, name: string, script: string, args: string[]): ComponentSpec {
  return { name, command: process.execPath, args: [bin(script), ...args], logFile: join(layout.logs, `${name}.log`) };
}

const apiserver = (c: ComponentContext, name: "garden" | "seed" | "shoot", extra: string[]): ComponentSpec =>
  node(c.layout, `${name}-apiserver`, "gardener-apiserver", ["--data-dir", c.layout.apiServerDir(name), "--secure-port", String(c.ports[name]), "--log-level", "warn", ...extra]);

export const gardenApiServer = (c: ComponentContext): ComponentSpec =>
  apiserver(c, "garden", [
    "--bind-address", "127.0.0.1",
    // Pods on the workers reach it at the host's public address, through the garden relay (gardenrelay.ts).
    "--tls-san", c.hostAddress,
    // Who created, renewed and deleted which Bastion, from where (the README shows the query).
    "--audit-policy-file", join(REPO, "manifests", "audit", "garden-policy.yaml"), "--audit-log-path", join(c.layout.logs, "garden-audit.log"),
    "--audit-log-maxsize", "100", "--audit-log-maxbackup", "10",
    // The project member's dashboard login token (terminals.ts).
    "--token-auth-file", c.layout.path("garden", "tokens.csv"),
    "--enable-gardener-apis", "--authorization-mode", "Seed,RBAC",
    ...(c.bastionTimeToLive ? ["--bastion-time-to-live", c.bastionTimeToLive] : []),
  ]);
const nodeGrace = (c: ComponentContext): string[] => (c.nodeMonitorGracePeriod ? ["--node-monitor-grace-period", c.nodeMonitorGracePeriod] : []);
// The seed and shoot API servers bind and advertise the host's public address: their node agents reach them
// from their machines through the node networks' NAT, and they reach the kubelets over the host's routes.
// The seed's worker, like the shoot's, joins with a bootstrap token (its kubelet endpoint serves attach for seed-hosted terminals).
export const seedApiServer = (c: ComponentContext): ComponentSpec => apiserver(c, "seed", ["--bind-address", c.hostAddress, "--advertise-address", c.hostAddress, "--enable-bootstrap-token-auth", ...nodeGrace(c)]);
/**
 * The shoot API server reaches its nodes only through the reversed VPN's egress proxy (src/landscape/vpn.ts), with
 * the files the landscape writes from the gardenlet's ConfigMap and Secrets. Before the gardenlet wrote them (the
 * first `up` of a state directory, when no shoot node exists yet) it starts without, and is restarted with them.
 */
export const shootApiServer = (c: ComponentContext, egress = true): ComponentSpec =>
  apiserver(c, "shoot", ["--bind-address", c.hostAddress, "--advertise-address", c.hostAddress, "--enable-bootstrap-token-auth", ...(egress ? ["--egress-selector-config-file", egressSelectorConfigOf(c.layout)] : []), ...nodeGrace(c)]);

/** The seed CONNECT proxy on the host's public address (docs/reversed-vpn.md#seed-connect-proxy). */
export const vpnSeedProxy = (c: ComponentContext): ComponentSpec =>
  node(c.layout, "vpn-seed-proxy", "vpn-seed-proxy", ["--kubeconfig", join(c.layout.apiServerDir("seed"), "admin.kubeconfig"), "--bind-address", `${c.hostAddress}:8132`, "--health-bind-address", "0", "--log-level", "warn"]);

/** The scheduler beside a cluster's API server (docs/scheduler.md), as system:kube-scheduler. */
export const scheduler = (c: ComponentContext, name: "garden" | "seed" | "shoot"): ComponentSpec =>
  node(c.layout, `${name}-scheduler`, "kube-scheduler", ["--kubeconfig", join(c.layout.apiServerDir(name), "scheduler.kubeconfig"), "--metrics-bind-address", "0", "--log-level", "warn"]);

export const controllerManager = (c: ComponentContext): ComponentSpec =>
  node(c.layout, "gardener-controller-manager", "gardener-controller-manager", ["--kubeconfig", c.layout.gardenKubeconfig, "--leader-elect", "false", "--metrics-bind-address", "0", "--log-level", "warn"]);

/** The landscape gardenlet's tunnel check period while healthy (Gardener's default is 1m). */
export const LANDSCAPE_CARE_SYNC_PERIOD = "10s";

export const gardenlet = (c: ComponentContext): ComponentSpec =>
  node(c.layout, "gardenlet", "gardenlet", [
    "--garden-kubeconfig", c.layout.gardenletKubeconfig,
    "--seed-kubeconfig", join(c.layout.apiServerDir("seed"), "admin.kubeconfig"),
    "--seed-name", "local",
    "--shoot-kubeconfig", `${PROJECT_NAMESPACE}/${SHOOT}=${c.layout.shootKubeconfig}`,
    ...(c.sshKeypairPoolSize ? ["--ssh-keypair-pool-size", c.sshKeypairPoolSize] : []),
    // The reversed VPN's credentials, Services and Endpoints (docs/reversed-vpn.md#the-local-landscape): the VPN
    // namespace's addresses on the landscape's seed network; ECDSA keys (RSA 3072 takes seconds per key on a busy machine).
    "--vpn-server-addresses", `${SHOOT_TECHNICAL_ID}=${vpnServerAddresses(LANDSCAPE_VPN_HA).join(",")}`,
    "--vpn-key-algorithm", "ecdsa-p256", "--vpn-egress-secrets-dir", egressSecretsDirOf(c.layout),
    // The tunnel check on the Shoot follows a stopped or returning vpn-shoot-client within seconds, not a minute.
    "--shoot-care-sync-period", LANDSCAPE_CARE_SYNC_PERIOD,
    "--metrics-bind-address", c.gardenletMetricsAddress ?? "0", "--log-level", "warn",
  ]);

export const providerLocal = (c: ComponentContext): ComponentSpec =>
  node(c.layout, "provider-local", "provider-local", [
    "--kubeconfig", join(c.layout.apiServerDir("seed"), "admin.kubeconfig"),
    "--state-dir", c.layout.providerState, "--prefix", c.prefix,
    ...(c.publicCidr ? ["--public-cidr", c.publicCidr] : []),
    ...(c.bastionPoolSize ? ["--bastion-pool-size", c.bastionPoolSize] : []),
    "--metrics-bind-address", "0", "--log-level", "warn",
  ]);

/** Where a worker's node agent keeps its credentials (docs/node-bootstrap.md#the-local-landscape). */
export const NODE_AGENT_DIR = "/var/lib/gardener-node-agent";
export const NODE_AGENT_KUBECONFIG = `${NODE_AGENT_DIR}/kubeconfig`;
export const NODE_AGENT_BOOTSTRAP_KUBECONFIG = `${NODE_AGENT_DIR}/bootstrap-kubeconfig`;

export interface WorkerUserDataOptions {
  nodeName: string;
  pool: string;
  /** A kubeconfig the node agent uses as is (written to /etc/gardener-node-agent/kubeconfig). */
  kubeconfig?: string;
  /**
   * Instead of `kubeconfig`: a bootstrap token kubeconfig; the node agent obtains its own
   * `system:node:<name>` certificate into NODE_AGENT_KUBECONFIG and follows `secretName`.
   */
  bootstrapKubeconfig?: string;
  /** The pool's OSC Secret (`--secret-name`): a node identity may read only that one. */
  secretName?: string;
  /** The node's pod range: the node agent is also the node's kubelet and the machine forwards its pods' traffic. */
  podCIDR?: string;
}

const heredoc = (path: string, text: string): string[] => [`cat > ${path} <<'GARDENER_LOCAL_EOF'`, text.trimEnd(), "GARDENER_LOCAL_EOF", `chmod 600 ${path}`];

/** The user-data of a worker: writes the node agent's credentials and keeps the node agent running. */
export function workerUserData(o: WorkerUserDataOptions): string {
  if ((o.kubeconfig === undefined) === (o.bootstrapKubeconfig === undefined)) throw new Error("worker user-data needs exactly one of kubeconfig and bootstrapKubeconfig");
  const credentials = o.bootstrapKubeconfig !== undefined
    ? ["--bootstrap-kubeconfig", NODE_AGENT_BOOTSTRAP_KUBECONFIG, "--kubeconfig", NODE_AGENT_KUBECONFIG]
    : ["--kubeconfig", "/etc/gardener-node-agent/kubeconfig"];
  const secret = o.secretName ? ["--secret-name", o.secretName] : [];
  // A kubelet with its own identity also serves 10250 with a serving certificate it requests itself (docs/node-bootstrap.md).
  const serving = o.bootstrapKubeconfig !== undefined ? ["--tls-cert-file", `${NODE_AGENT_DIR}/kubelet.crt`, "--tls-private-key-file", `${NODE_AGENT_DIR}/kubelet.key`] : [];
  const kubelet = o.podCIDR ? ["--kubelet", "--pod-cidr", o.podCIDR, ...serving] : [];
  const agent = [process.execPath, bin("gardener-node-agent"), ...credentials, "--node-name", o.nodeName, "--pool", o.pool, ...secret, "--host-key-dir", "/run/ga/host-keys", ...kubelet, "--log-level", "info"].join(" ");
  const files = o.bootstrapKubeconfig !== undefined
    ? [`mkdir -p ${NODE_AGENT_DIR}`, `chmod 700 ${NODE_AGENT_DIR}`, ...heredoc(NODE_AGENT_BOOTSTRAP_KUBECONFIG, o.bootstrapKubeconfig)]
    : ["mkdir -p /etc/gardener-node-agent", ...heredoc("/etc/gardener-node-agent/kubeconfig", o.kubeconfig ?? "")];
  return [
    "#!/bin/sh",
    "set -e",
    // As Gardener's operating system config sets net.ipv4.ip_forward: pods reach the outside through the node.
    ...(o.podCIDR ? ["echo 1 > /proc/sys/net/ipv4/ip_forward"] : []),
    ...files,
    // The node agent is this machine's one long-running service: restarted when it exits.
    `setsid sh -c 'while :; do ${agent}; sleep 2; done' </dev/null >>/run/ga/node-agent.log 2>&1 &`,
    "",
  ].join("\n");
}
