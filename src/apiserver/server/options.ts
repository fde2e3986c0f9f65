// Command-line flags of gardener-apiserver, named as kube-apiserver's where the concept exists.
// Parsing never exits the process: it returns either the options or what to print and the exit
// code (help: 0; bad flags: a one-line error and 2).
import { DEFAULT_SERVICE_CIDR, parseServiceRange } from "../admission/service-ip.ts";
import { isIP } from "node:net";
import { join } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { isDNS1123Subdomain } from "../../apimachinery/names/validation.ts";
import { DurationError, parseDuration, parsePositiveDuration } from "../../utils/duration.ts";
import { DEFAULT_WATCH_LIMITS, type WatchLimits } from "../endpoints/watch-budget.ts";

export const AUTHORIZATION_MODES = ["Node", "Seed", "RBAC", "AlwaysAllow", "AlwaysDeny"] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface ApiServerOptions {
  dataDir: string;
  /** 0: pick a free port. */
  securePort: number;
  bindAddress: string;
  certDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  /** Client certificate and key the server presents to kubelets (default: issued from the generated CA). */
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  /** CA bundle verifying kubelets' serving certificates (default: the generated CA). */
  kubeletCertificateAuthority?: string;
  /** --egress-selector-config-file: an EgressSelectorConfiguration; its `cluster` entry carries kubelet traffic. */
  egressSelectorConfigFile?: string;
  tokenAuthFile?: string;
  /** Bearer tokens `<id>.<secret>` from kube-system bootstrap token Secrets (docs/node-bootstrap.md). */
  enableBootstrapTokenAuth: boolean;
  /** The longest validity of certificates the kubelet signers issue (kube-controller-manager's --cluster-signing-duration). */
  clusterSigningDurationMs: number;
  /** Non-empty: etcd storage instead of SQLite. */
  etcdServers: string[];
  /** SQLite: acknowledge writes only once they are on disk (fdatasync, grouped); false: once in the OS. */
  sqliteFsync: boolean;
  etcdPrefix: string;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  /** Default https://<bind or advertise address>:<port>. The first one signs; all are accepted. */
  serviceAccountIssuers: string[];
  authorizationModes: AuthorizationMode[];
  anonymousAuth: boolean;
  advertiseAddress?: string;
  /**
   * --tls-san: further host names and IP addresses of the generated serving certificate (as kubeadm's
   * `certSANs`), for clients that reach the server through a forwarded address.
   */
  tlsSans?: string[];
  /** IPv4 CIDR Services get their cluster IPs from (kube-apiserver's --service-cluster-ip-range). */
  serviceClusterIPRange: string;
  /** Events the watch cache keeps for resuming watches; 0 disables the cache. */
  watchCacheSize: number;
  /** 0 disables periodic compaction. */
  compactionIntervalMs: number;
  /** Revisions kept by each compaction. */
  compactionRetainedRevisions: number;
  logLevel: string;
  /** Serve core.gardener.cloud and operations.gardener.cloud (the garden cluster). */
  gardenerApis: boolean;
  /** Heartbeat time-to-live of garden Bastions. */
  bastionTimeToLiveMs: number;
  /** Shoots whose SSH key pair was not rotated for this long get a warning on create and update. */
  shootCredentialsRotationIntervalMs: number;
  /** Watches end after a random time in [n, 2n) seconds; a longer timeoutSeconds is clamped to 2n. */
  minRequestTimeoutSeconds: number;
  /** Unread watch data allowed per watch, per user and in total (bytes), and concurrent watches per user. */
  watchLimits: WatchLimits;
  /** The audit log: both set, or neither. */
  auditPolicyFile?: string;
  /** A file, or "-" for standard output. */
  auditLogPath?: string;
  auditLogMaxAgeDays: number;
  auditLogMaxBackups: number;
  auditLogMaxSizeMB: number;
  auditLogBufferSize: number;
  /** A node whose kubelet neither renewed its Lease nor posted Ready for this long is marked Unknown and tainted unreachable. */
  nodeMonitorGracePeriodMs: number;
  /** Streams one HTTP/2 connection may have open at once (kube-apiserver's flag); 0: 250 (docs/kubernetes-api.md#http2). */
  http2MaxStreamsPerConnection?: number;
  /** Threads serving requests on the one listening port; 1: the process serves them itself (docs/high-availability.md#workers). */
  workers: number;
  /** The controllers Lease among replicas on one etcd (docs/high-availability.md). */
  leaderElection: { enabled: boolean; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
}

export type ParseResult = { kind: "options"; options: ApiServerOptions } | { kind: "exit"; code: number; stdout: string; stderr: string };

class FlagError extends Error {}

/** A Go duration flag (e.g. "5m", "1h30m"), in milliseconds; a bad value is a flag error. */
function durationFlag(v: unknown, name: string, positive = false): number {
  try {
    return positive ? parsePositiveDuration(String(v)) : parseDuration(String(v));
  } catch (err) {
    if (err instanceof DurationError) throw new FlagError(`${name}: ${err.message}`);
    throw err;
  }
}

function intFlag(name: string, min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new FlagError(`invalid value "${v}" for ${name}: must be an integer between ${min} and ${max}`);
    return Number(v);
  };
}

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(",").map((s) => s.trim()).filter(Boolean)];

function program(): Command {
  return new Command("gardener-apiserver")
    .description("A Kubernetes-compatible API server (HTTPS only) for the Gardener operator-access landscape.")
    .addOption(new Option("--data-dir <dir>", "Directory for the database (state.db), the PKI and admin.kubeconfig (required)."))
    .addOption(new Option("--secure-port <port>", "HTTPS port to listen on; 0 picks a free port.").default(6443).argParser(intFlag("--secure-port", 0, 65535)))
    .addOption(new Option("--bind-address <ip>", "IP address to listen on.").default("127.0.0.1"))
    .addOption(new Option("--cert-dir <dir>", "Directory holding the generated CA, serving certificate and keys (default <data-dir>/pki). Ignored for serving when --tls-cert-file and --tls-private-key-file are given."))
    .addOption(new Option("--tls-cert-file <file>", "Serving certificate (PEM, with intermediates)."))
    .addOption(new Option("--tls-private-key-file <file>", "Private key of --tls-cert-file (PEM)."))
    .addOption(new Option("--client-ca-file <file>", "CA bundle verifying client certificates (CN = user, O = groups), in addition to the generated CA."))
    .addOption(new Option("--kubelet-client-certificate <file>", "Client certificate (PEM) presented to kubelets for exec, attach and logs (default: <cert-dir>/apiserver-kubelet-client.crt, CN system:kube-apiserver:kubelet)."))
    .addOption(new Option("--kubelet-client-key <file>", "Private key of --kubelet-client-certificate (PEM)."))
    .addOption(new Option("--kubelet-certificate-authority <file>", "CA bundle verifying the kubelets' serving certificates (default: the generated CA)."))
    .addOption(new Option("--egress-selector-config-file <file>", "EgressSelectorConfiguration: traffic to nodes and pods (the `cluster` selection) may go through an HTTPConnect proxy (default: direct)."))
    .addOption(new Option("--token-auth-file <file>", 'Static bearer tokens, one CSV line each: token,user,uid,"group1,group2".'))
    .addOption(new Option("--enable-bootstrap-token-auth [bool]", "Accept bootstrap tokens (<id>.<secret>, Secrets bootstrap-token-<id> of type bootstrap.kubernetes.io/token in kube-system) as system:bootstrap:<id> in system:bootstrappers.").default(false))
    .addOption(new Option("--cluster-signing-duration <duration>", "The longest validity of certificates the kubelet client and serving signers issue (Go duration).").default("8760h"))
    .addOption(new Option("--etcd-servers <urls>", "Comma-separated etcd endpoints; selects etcd storage instead of SQLite.").argParser(collect))
    .addOption(new Option("--sqlite-fsync [bool]", "SQLite storage: acknowledge a write only once it is on disk (writes arriving together share one fdatasync). false: once it is in the OS, which survives a crash of the process but not of the machine.").default(true))
    .addOption(new Option("--etcd-prefix <prefix>", "Prefix of every etcd key, so several servers can share one etcd.").default("/registry"))
    .addOption(new Option("--service-account-key-file <file>", "PEM public (or private) key(s) verifying service-account tokens; repeatable.").argParser(collect))
    .addOption(new Option("--service-account-signing-key-file <file>", "PEM private key signing service-account tokens (default: the generated <cert-dir>/sa.key)."))
    .addOption(new Option("--service-account-issuer <url>", "The iss claim of issued tokens (default https://<address>:<port>); repeatable, the first signs.").argParser(collect))
    .addOption(new Option("--authorization-mode <modes>", `Ordered, comma-separated authorizers: ${AUTHORIZATION_MODES.join(", ")} (Node: kubelets' access to their own node's objects; Seed: gardenlets' access to their own seed's objects, needs --enable-gardener-apis). system:masters is always allowed. Default: Node,RBAC; RBAC with --enable-gardener-apis.`))
    .addOption(new Option("--anonymous-auth [bool]", "Serve requests without credentials as system:anonymous (group system:unauthenticated), for whatever authorization allows them (RBAC: /healthz, /livez, /readyz, /version). Off with AlwaysAllow.").default(true))
    .addOption(new Option("--advertise-address <ip>", "Address clients use to reach this server (kubeconfig, serving certificate, issuer)."))
    .addOption(new Option("--tls-san <names>", "Further DNS names or IP addresses (comma-separated, repeatable) in the generated serving certificate, for clients reaching this server through a forwarded address.").argParser(collect))
    .addOption(new Option("--service-cluster-ip-range <cidr>", "IPv4 CIDR Services get their cluster IPs from; the first address is the kubernetes Service's.").default(DEFAULT_SERVICE_CIDR))
    .addOption(new Option("--watch-cache-size <n>", "Events the watch cache keeps so watches can resume; 0 disables the cache.").default(10000).argParser(intFlag("--watch-cache-size", 0, 10_000_000)))
    .addOption(new Option("--etcd-compaction-interval <duration>", "How often old revisions are compacted (e.g. 5m); 0 disables.").default("5m"))
    .addOption(new Option("--compaction-retained-revisions <n>", "Revisions each compaction keeps.").default(10000).argParser(intFlag("--compaction-retained-revisions", 1, 1_000_000_000)))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .addOption(new Option("--enable-gardener-apis [bool]", "Serve Gardener's garden APIs (core.gardener.cloud Projects, Seeds, Shoots; operations.gardener.cloud Bastions) with their admission plugins and roles; for the garden cluster.").default(false))
    .addOption(new Option("--bastion-time-to-live <duration>", "How long a Bastion lives after its last heartbeat (Go duration).").default("1h"))
    .addOption(new Option("--shoot-credentials-rotation-interval <duration>", "Warn on create and update of Shoots whose SSH key pair was not rotated for this long (Go duration).").default("2160h"))
    .addOption(new Option("--min-request-timeout <seconds>", "Watches end after a random time between this and twice this; a larger timeoutSeconds is clamped to twice this.").default(1800).argParser(intFlag("--min-request-timeout", 1, 86_400)))
    .addOption(new Option("--watch-buffer-bytes <n>", "Unread bytes one watch may hold (queued events and connection backlog); a watch beyond it is ended and its client re-lists.").default(DEFAULT_WATCH_LIMITS.perWatchBytes).argParser(intFlag("--watch-buffer-bytes", 1024, 2 ** 40)))
    .addOption(new Option("--watch-user-buffer-bytes <n>", "Unread bytes all watches of one user may hold; beyond it the user's largest backlogs are ended.").default(DEFAULT_WATCH_LIMITS.perUserBytes).argParser(intFlag("--watch-user-buffer-bytes", 1024, 2 ** 40)))
    .addOption(new Option("--watch-total-buffer-bytes <n>", "Unread bytes all watches may hold; beyond it the largest backlogs are ended.").default(DEFAULT_WATCH_LIMITS.totalBytes).argParser(intFlag("--watch-total-buffer-bytes", 1024, 2 ** 40)))
    .addOption(new Option("--max-watches-per-user <n>", "Concurrent watches of one user; more are refused with 429.").default(DEFAULT_WATCH_LIMITS.perUserWatches).argParser(intFlag("--max-watches-per-user", 1, 1_000_000)))
    .addOption(new Option("--audit-policy-file <file>", "audit.k8s.io/v1 Policy (YAML or JSON) saying which requests are recorded at which level; needs --audit-log-path."))
    .addOption(new Option("--audit-log-path <file>", 'Append audit events (audit.k8s.io/v1 Event, JSON lines) to this file; "-" means standard output. Needs --audit-policy-file.'))
    .addOption(new Option("--audit-log-maxage <days>", "Days to keep rotated audit log files (0: no limit).").default(0).argParser(intFlag("--audit-log-maxage", 0, 100_000)))
    .addOption(new Option("--audit-log-maxbackup <n>", "Rotated audit log files to keep (0: no limit).").default(0).argParser(intFlag("--audit-log-maxbackup", 0, 100_000)))
    .addOption(new Option("--audit-log-maxsize <MB>", "Rotate the audit log when it would grow past this many megabytes (0: 100 when --audit-log-maxage or --audit-log-maxbackup is set, else never).").default(0).argParser(intFlag("--audit-log-maxsize", 0, 1_000_000)))
    .addOption(new Option("--audit-log-batch-buffer-size <n>", "Audit events queued for writing at most; beyond it events are dropped (and counted in the log) rather than requests delayed.").default(10000).argParser(intFlag("--audit-log-batch-buffer-size", 1, 10_000_000)))
    .addOption(new Option("--node-monitor-grace-period <duration>", "How long a node's kubelet may go without renewing its Lease in kube-node-lease (or posting Ready) before the node's conditions become Unknown and it is tainted unreachable (Go duration).").default("40s"))
    .addOption(new Option("--http2-max-streams-per-connection <n>", "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means the default of 250.").default(0).argParser(intFlag("--http2-max-streams-per-connection", 0, 2 ** 31 - 1)))
    .addOption(new Option("--workers <n>", "Worker threads serving requests, each a full API server with its own watch cache on the same storage; the process accepts connections on --secure-port and hands them to the workers in turn. 1: the process serves requests itself.").default(1).argParser(intFlag("--workers", 1, 64)))
    .addOption(new Option("--leader-elect [bool]", "Run the controllers kube-controller-manager would run (namespaces, garbage collector, endpoints, node lifecycle, RBAC aggregation, certificates) only while holding the Lease kube-system/gardener-apiserver-controllers, so replicas on one etcd do not run them twice.").default(true))
    .addOption(new Option("--leader-elect-lease-duration <duration>", "How long other replicas wait after the last observed renewal before taking the lease over (Go duration).").default("15s"))
    .addOption(new Option("--leader-elect-renew-deadline <duration>", "The leader stops its controllers if it could not renew the lease for this long (Go duration).").default("10s"))
    .addOption(new Option("--leader-elect-retry-period <duration>", "Pause between attempts to acquire or renew the lease (Go duration).").default("2s"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

function parseBoolFlag(v: unknown, name: string): boolean {
  if (v === true || v === false) return v;
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new FlagError(`invalid value "${String(v)}" for ${name}: must be true or false`);
}

/** At most MAX_TLS_SANS entries, each an IP address or a DNS-1123 subdomain. */
const MAX_TLS_SANS = 64;
function checkSans(sans: string[]): void {
  if (sans.length > MAX_TLS_SANS) throw new FlagError(`--tls-san: at most ${MAX_TLS_SANS} names`);
  for (const s of sans) if (isIP(s) === 0 && isDNS1123Subdomain(s).length > 0) throw new FlagError(`invalid value "${s}" for --tls-san: must be an IP address or a DNS name`);
}

function checkIp(v: string | undefined, name: string): void {
  if (v !== undefined && isIP(v) === 0) throw new FlagError(`invalid value "${v}" for ${name}: must be an IP address`);
}

/** Flags checked on their own or in pairs, without a value of their own in the options. */
function checkFlags(o: Record<string, unknown>): void {
  checkIp(o.bindAddress as string, "--bind-address");
  checkIp(o.advertiseAddress as string | undefined, "--advertise-address");
  checkSans((o.tlsSan as string[] | undefined) ?? []);
  try {
    parseServiceRange(String(o.serviceClusterIpRange));
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  if (Boolean(o.tlsCertFile) !== Boolean(o.tlsPrivateKeyFile)) throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
  if (Boolean(o.kubeletClientCertificate) !== Boolean(o.kubeletClientKey)) throw new FlagError("--kubelet-client-certificate and --kubelet-client-key must be given together");
  if (Boolean(o.auditPolicyFile) !== Boolean(o.auditLogPath)) throw new FlagError("--audit-policy-file and --audit-log-path must be given together");
  for (const e of (o.etcdServers as string[] | undefined) ?? []) if (!/^https?:\/\/[^/]+$/.test(e)) throw new FlagError(`invalid etcd server "${e}": expected http(s)://host:port`);
}

function authorizationModes(o: Record<string, unknown>, gardenerApis: boolean): string[] {
  // As a kubeadm or Gardener shoot kube-apiserver: nodes are authorized by the Node authorizer. The garden has no nodes.
  const modeFlag = o.authorizationMode === undefined ? (gardenerApis ? "RBAC" : "Node,RBAC") : String(o.authorizationMode);
  const modes = modeFlag.split(",").map((m) => m.trim()).filter(Boolean);
  for (const m of modes) if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new FlagError(`unsupported authorization mode "${m}": supported modes are ${AUTHORIZATION_MODES.join(", ")}`);
  if (modes.length === 0) throw new FlagError("--authorization-mode must name at least one mode");
  if (modes.includes("Seed") && !gardenerApis) throw new FlagError("--authorization-mode Seed needs --enable-gardener-apis");
  return modes;
}

function leaderElectionFlags(o: Record<string, unknown>): ApiServerOptions["leaderElection"] {
  const leaderElection = {
    enabled: parseBoolFlag(o.leaderElect, "--leader-elect"),
    leaseDurationMs: durationFlag(o.leaderElectLeaseDuration, "--leader-elect-lease-duration", true),
    renewDeadlineMs: durationFlag(o.leaderElectRenewDeadline, "--leader-elect-renew-deadline", true),
    retryPeriodMs: durationFlag(o.leaderElectRetryPeriod, "--leader-elect-retry-period", true),
  };
  if (leaderElection.leaseDurationMs <= leaderElection.renewDeadlineMs) throw new FlagError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (leaderElection.renewDeadlineMs <= leaderElection.retryPeriodMs) throw new FlagError("--leader-elect-renew-deadline must be greater than --leader-elect-retry-period");
  return leaderElection;
}

export function parseOptions(argv: string[]): ParseResult {
  let stdout = "";
  let stderr = "";
  const cmd = program().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  try {
    cmd.parse(argv, { from: "user" });
    const o = cmd.opts<Record<string, unknown>>();
    const dataDir = o.dataDir as string | undefined;
    if (!dataDir) throw new FlagError("--data-dir is required");
    checkFlags(o);
    const gardenerApis = parseBoolFlag(o.enableGardenerApis, "--enable-gardener-apis");
    const modes = authorizationModes(o, gardenerApis);
    const etcdServers = (o.etcdServers as string[] | undefined) ?? [];
    const leaderElection = leaderElectionFlags(o);
    const workers = o.workers as number;
    const options: ApiServerOptions = {
      leaderElection,
      workers,
      dataDir,
      securePort: o.securePort as number,
      bindAddress: o.bindAddress as string,
      certDir: (o.certDir as string | undefined) ?? join(dataDir, "pki"),
      tlsCertFile: o.tlsCertFile as string | undefined,
      tlsPrivateKeyFile: o.tlsPrivateKeyFile as string | undefined,
      clientCaFile: o.clientCaFile as string | undefined,
      tokenAuthFile: o.tokenAuthFile as string | undefined,
      enableBootstrapTokenAuth: parseBoolFlag(o.enableBootstrapTokenAuth, "--enable-bootstrap-token-auth"),
      clusterSigningDurationMs: durationFlag(o.clusterSigningDuration, "--cluster-signing-duration", true),
      kubeletClientCertificate: o.kubeletClientCertificate as string | undefined,
      kubeletClientKey: o.kubeletClientKey as string | undefined,
      kubeletCertificateAuthority: o.kubeletCertificateAuthority as string | undefined,
      egressSelectorConfigFile: o.egressSelectorConfigFile as string | undefined,
      etcdServers,
      sqliteFsync: parseBoolFlag(o.sqliteFsync, "--sqlite-fsync"),
      etcdPrefix: o.etcdPrefix as string,
      serviceAccountKeyFiles: (o.serviceAccountKeyFile as string[] | undefined) ?? [],
      serviceAccountSigningKeyFile: o.serviceAccountSigningKeyFile as string | undefined,
      serviceAccountIssuers: (o.serviceAccountIssuer as string[] | undefined) ?? [],
      authorizationModes: modes as AuthorizationMode[],
      // As kube-apiserver: AlwaysAllow would let anonymous requests do anything, so it turns anonymous auth off.
      anonymousAuth: parseBoolFlag(o.anonymousAuth, "--anonymous-auth") && !modes.includes("AlwaysAllow"),
      advertiseAddress: o.advertiseAddress as string | undefined,
      ...(o.tlsSan ? { tlsSans: o.tlsSan as string[] } : {}),
      serviceClusterIPRange: String(o.serviceClusterIpRange),
      watchCacheSize: o.watchCacheSize as number,
      compactionIntervalMs: durationFlag(o.etcdCompactionInterval, "--etcd-compaction-interval"),
      compactionRetainedRevisions: o.compactionRetainedRevisions as number,
      logLevel: o.logLevel as string,
      gardenerApis,
      bastionTimeToLiveMs: durationFlag(o.bastionTimeToLive, "--bastion-time-to-live", true),
      shootCredentialsRotationIntervalMs: durationFlag(o.shootCredentialsRotationInterval, "--shoot-credentials-rotation-interval", true),
      minRequestTimeoutSeconds: o.minRequestTimeout as number,
      http2MaxStreamsPerConnection: o.http2MaxStreamsPerConnection as number,
      watchLimits: {
        perWatchBytes: o.watchBufferBytes as number,
        perUserBytes: o.watchUserBufferBytes as number,
        totalBytes: o.watchTotalBufferBytes as number,
        perUserWatches: o.maxWatchesPerUser as number,
      },
      auditPolicyFile: o.auditPolicyFile as string | undefined,
      auditLogPath: o.auditLogPath as string | undefined,
      auditLogMaxAgeDays: o.auditLogMaxage as number,
      auditLogMaxBackups: o.auditLogMaxbackup as number,
      auditLogMaxSizeMB: o.auditLogMaxsize as number,
      auditLogBufferSize: o.auditLogBatchBufferSize as number,
      nodeMonitorGracePeriodMs: durationFlag(o.nodeMonitorGracePeriod, "--node-monitor-grace-period", true),
    };
    return { kind: "options", options };
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return { kind: "exit", code: 0, stdout, stderr: "" };
      const line = err.message.replace(/^error: /, "").split("\n")[0];
      return { kind: "exit", code: 2, stdout: "", stderr: `error: ${line}\n` };
    }
    if (err instanceof FlagError) return { kind: "exit", code: 2, stdout: "", stderr: `error: ${err.message}\n` };
    throw err;
  }
}
