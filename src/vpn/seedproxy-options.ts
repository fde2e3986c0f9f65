// Command-line flags of vpn-seed-proxy, the seed CONNECT proxy (docs/reversed-vpn.md#seed-connect-proxy).
// Parsing never exits the process: it returns the options, or what to print and the exit code (help: 0;
// bad flags: one line and 2).
import { Command, Option } from "commander";
import { type BindAddress, FlagError, type FlagsResult, parseBindAddress, parseFlags } from "../utils/flags.ts";

export interface SeedProxyFlags {
  kubeconfig: string;
  bindAddress: BindAddress;
  healthBindAddress: BindAddress | undefined;
  logLevel: string;
}

function program(): Command {
  return new Command("vpn-seed-proxy")
    .description("The seed CONNECT proxy of the reversed VPN: routes a shoot's CONNECT with the Reversed-VPN header to its control plane's vpn-seed-server, known from the seed's Endpoints labelled app=vpn-seed-server.")
    .addOption(new Option("--kubeconfig <file>", "Kubeconfig of the seed cluster; needs list and watch on Endpoints in every namespace (required)."))
    .addOption(new Option("--bind-address <host:port>", "Where the proxy listens: the seed's public address.").default(":8132"))
    .addOption(new Option("--health-bind-address <host:port>", 'Where /healthz, /readyz and /metrics listen; "0" disables.').default("127.0.0.1:8133"))
    .addOption(new Option("--log-level <level>", "pino log level: trace, debug, info, warn, error.").default("info"))
    .helpOption("-h, --help", "Show this help.")
    .addHelpText("after", "\nExample:\n  vpn-seed-proxy --kubeconfig seed.kubeconfig --bind-address 198.18.0.1:8132\n")
    .allowExcessArguments(false)
    .exitOverride();
}

export function parseSeedProxyFlags(argv: string[]): FlagsResult<SeedProxyFlags> {
  return parseFlags(program(), argv, (o: Record<string, unknown>) => {
    const kubeconfig = o.kubeconfig as string | undefined;
    if (!kubeconfig) throw new FlagError("--kubeconfig is required");
    const bindAddress = parseBindAddress(String(o.bindAddress), "--bind-address");
    if (!bindAddress) throw new FlagError('--bind-address must not be "0": the proxy is the component\'s purpose');
    return { kubeconfig, bindAddress, healthBindAddress: parseBindAddress(String(o.healthBindAddress), "--health-bind-address"), logLevel: String(o.logLevel) };
  });
}
