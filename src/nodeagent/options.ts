// Command-line flags of the node agent. Parsing never exits the process: it returns the options, or
// what to print and the exit code (help: 0; bad flags: one line and 2).
import { Command, Option } from "commander";
import { FlagError, type FlagsResult, parseFlags } from "../utils/flags.ts";

export interface NodeAgentFlags {
  kubeconfig: string;
  nodeName: string;
  pool: string;
  root: string;
  secretName: string | undefined;
  hostKeyDir: string;
  logLevel: string;
  /** Run pods bound to this node (kubelet). */
  kubelet: boolean;
  podCIDR: string | undefined;
  kubeletStateDir: string;
  /** A bootstrap token kubeconfig: obtain (and renew) the node's own certificate into --kubeconfig. */
  bootstrapKubeconfig: string | undefined;
  /** Where the kubelet serving certificate and key are kept (both or neither). */
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  /** Client CAs of the kubelet endpoint (default: the CA of --kubeconfig's cluster). */
  clientCAFile: string | undefined;
}

export type ParseResult = FlagsResult<NodeAgentFlags>;

function program(): Command {
  return new Command("gardener-node-agent")
    .description("Registers this worker's Node, installs the authorized keys of user gardener from its pool's operating system config and reports the applied checksum.")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the shoot API server (required)."))
    .addOption(new Option("--bootstrap-kubeconfig <file>", "Kubeconfig with a bootstrap token: when --kubeconfig is missing or its certificate is due, request system:node:<name> (written to --kubeconfig, 0600) and renew it."))
    .addOption(new Option("--tls-cert-file <file>", "Keep a kubelet serving certificate (node IP and host name) in this file."))
    .addOption(new Option("--tls-private-key-file <file>", "The key of --tls-cert-file (0600)."))
    .addOption(new Option("--client-ca-file <file>", "With --kubelet and --tls-cert-file: CAs of the clients the kubelet endpoint (10250) accepts (default: the CA of --kubeconfig's cluster)."))
    .addOption(new Option("--node-name <name>", "Name of this machine's Node (required)."))
    .addOption(new Option("--pool <name>", "Worker pool of this machine (required)."))
    .addOption(new Option("--root <dir>", 'The machine\'s root directory; user creation and sshd control happen only with "/".').default("/"))
    .addOption(new Option("--secret-name <name>", "The OSC Secret to follow (default: the newest Secret of the pool)."))
    .addOption(new Option("--host-key-dir <dir>", "Directory (under --root) of the ssh_host_*_key.pub files.").default("/etc/ssh"))
    .addOption(new Option("--kubelet", "Also act as this node's kubelet: run the pods bound to it (off by default)."))
    .addOption(new Option("--pod-cidr <cidr>", "The node's pod range (spec.podCIDR), e.g. 10.96.1.0/24; required with --kubelet."))
    .addOption(new Option("--kubelet-state-dir <dir>", "The kubelet's state directory (pods, containers, their records).").default("/var/lib/gardener-node-agent/kubelet"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .allowExcessArguments(false)
    .exitOverride();
}

export function parseNodeAgentFlags(argv: string[]): ParseResult {
  return parseFlags(program(), argv, (o: Record<string, string | boolean | undefined>) => {
    for (const [flag, value] of [
      ["--kubeconfig", o.kubeconfig],
      ["--node-name", o.nodeName],
      ["--pool", o.pool],
    ] as const) {
      if (!value) throw new FlagError(`${flag} is required`);
    }
    const podCIDR = typeof o.podCidr === "string" && o.podCidr ? o.podCidr : undefined;
    if (podCIDR && !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(podCIDR)) throw new FlagError(`--pod-cidr ${podCIDR} is not an IPv4 CIDR`);
    const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
    if (Boolean(str(o.tlsCertFile)) !== Boolean(str(o.tlsPrivateKeyFile))) throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
    if (o.kubelet === true && !podCIDR) throw new FlagError("--pod-cidr is required with --kubelet");
    return {
      kubeconfig: String(o.kubeconfig),
      nodeName: String(o.nodeName),
      pool: String(o.pool),
      root: String(o.root),
      secretName: typeof o.secretName === "string" && o.secretName ? o.secretName : undefined,
      hostKeyDir: String(o.hostKeyDir),
      logLevel: String(o.logLevel),
      kubelet: o.kubelet === true,
      podCIDR,
      kubeletStateDir: String(o.kubeletStateDir),
      bootstrapKubeconfig: str(o.bootstrapKubeconfig),
      tlsCertFile: str(o.tlsCertFile),
      tlsPrivateKeyFile: str(o.tlsPrivateKeyFile),
      clientCAFile: str(o.clientCaFile),
    };
  });
}
