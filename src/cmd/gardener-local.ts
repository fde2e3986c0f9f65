// gardener-local: starts, inspects and stops the local landscape (garden, seed and shoot API servers,
// controller manager, gardenlet, provider-local, worker machines) on this Linux host. `supervise` is
// the detached process `up` starts; it is not meant to be run by hand.
import { Command, Option } from "commander";
import { UpInterruptedError, down, ensurePackages, requireRoot, status, up } from "../landscape/control.ts";
import { installGardenctlConfig, uninstallGardenctlConfig } from "../landscape/gardenctl.ts";
import { DEFAULT_PORTS, DEFAULT_PREFIX, Layout, MEMBER_USER } from "../landscape/layout.ts";
import { superviseMain } from "../landscape/run.ts";
import { parseBastionPoolSize, parsePorts, parsePublicCidr } from "../landscape/flags.ts";
import { DEFAULT_BASTION_POOL_SIZE } from "../provider-local/options.ts";
import { DEFAULT_PUBLIC_CIDR } from "../provider-local/network/networks.ts";
import { existsSync, readFileSync } from "node:fs";
import { dashboardUrlPath, memberTokenPath } from "../landscape/terminals.ts";
import { OPERATOR_USER, operatorTokenPath } from "../landscape/operator-terminals.ts";

const DEFAULT_STATE_DIR = "/var/lib/gardener-local";

function fail(err: unknown): void {
  process.stderr.write(`gardener-local: ${(err as Error).message}\n`);
  process.exitCode = 1;
}

const stateDir = () => new Option("--state-dir <dir>", "where the landscape keeps its data, logs, kubeconfigs and host records").default(DEFAULT_STATE_DIR);
const publicCidr = () =>
  new Option("--public-cidr <cidr>", "the public network: the host's, the routers' and every bastion's public address (at most 1,023 machines per bridge)").default(DEFAULT_PUBLIC_CIDR);

const prefix = () => new Option("--prefix <prefix>", "name prefix of the host objects (namespaces, links, nft tables)").default(DEFAULT_PREFIX);
const out = (line: string): void => void process.stdout.write(`${line}\n`);

const program = new Command("gardener-local")
  .description("Start, inspect and stop the local Gardener landscape on this Linux host (requires root).")
  .addHelpText(
    "after",
    [
      "",
      "`up` starts garden, seed and shoot API servers, the controller manager, the gardenlet, provider-local",
      "and two worker machines of shoot garden-local/local, and returns when everything is ready. It writes:",
      "  DIR/garden.kubeconfig          garden administrator",
      "  DIR/garden-member.kubeconfig   admin of project local (no cluster-wide rights)",
      "  DIR/shoot-local.kubeconfig     administrator of the shoot's API server",
      "  DIR/gardenctl/                 GCTL_HOME for `gardenctl ssh --garden local --project local --shoot local`:",
      "                                 garden local and a public-IP command (the host's public-network address)",
      "The same gardenctl configuration goes to gardenctl's default file (~/.garden/gardenctl-v2.yaml, or",
      "under $GCTL_HOME) when there is none yet, so that `gardenctl ssh --kubeconfig DIR/garden.kubeconfig",
      "--project local --shoot local NODE` works as it is; `down` removes it again unless it was changed.",
      "Components keep running under a supervisor that restarts crashed ones; logs are in DIR/logs.",
      "`down` stops everything and removes every namespace, link, mount, process and nft table it created.",
    ].join("\n"),
  )
  .showHelpAfterError();

program
  .command("up")
  .description("start the landscape and wait until it is ready")
  .addOption(stateDir())
  .addOption(prefix())
  .addOption(new Option("--ports <garden,seed,shoot>", "secure ports of the three API servers").default(`${DEFAULT_PORTS.garden},${DEFAULT_PORTS.seed},${DEFAULT_PORTS.shoot}`))
  .addOption(publicCidr())
  .addOption(new Option("--bastion-pool-size <n>", "bastion machines provider-local boots in advance, so that a bastion's creation only claims one (0: none)").default(String(DEFAULT_BASTION_POOL_SIZE)))
  .action(async (o: { stateDir: string; prefix: string; ports: string; publicCidr: string; bastionPoolSize: string }) => {
    // SIGINT or SIGTERM while starting: stop the supervisor, then remove what it built (as `down`).
    const interrupt = new AbortController();
    let signal: NodeJS.Signals | undefined;
    for (const s of ["SIGINT", "SIGTERM"] as const) process.once(s, () => ((signal ??= s), interrupt.abort()));
    try {
      const flags = { ports: parsePorts(o.ports), publicCidr: parsePublicCidr(o.publicCidr), bastionPoolSize: parseBastionPoolSize(o.bastionPoolSize) };
      requireRoot("up");
      ensurePackages();
      const layout = new Layout(o.stateDir);
      try {
        await up(layout, { prefix: o.prefix, ...flags, out, signal: interrupt.signal });
      } catch (err) {
        if (!(err instanceof UpInterruptedError)) throw err;
        await down(layout, o.prefix, out);
        process.exit(signal === "SIGINT" ? 130 : 143);
      }
      out(installGardenctlConfig(layout, process.env));
      out(`landscape ready; kubeconfigs:\n  ${layout.gardenKubeconfig}\n  ${layout.memberKubeconfig}\n  ${layout.shootKubeconfig}`);
      if (existsSync(dashboardUrlPath(layout))) {
        out(`dashboard: ${readFileSync(dashboardUrlPath(layout), "utf8").trim()} (URL in ${dashboardUrlPath(layout)}); log in with the token in ${memberTokenPath(layout)}`);
        out(`  as the project member ${MEMBER_USER}; as the operator ${OPERATOR_USER} (control-plane and garden terminals) with the token in ${operatorTokenPath(layout)}`);
      }
    } catch (err) {
      fail(err);
    }
  });

program
  .command("status")
  .description("show components and machines")
  .addOption(stateDir())
  .action((o: { stateDir: string }) => {
    process.stdout.write(status(new Layout(o.stateDir)));
  });

program
  .command("down")
  .description("stop everything and remove every host resource the landscape created")
  .addOption(stateDir())
  .addOption(new Option("--prefix <prefix>", "name prefix of the host objects (default: the one the state directory records)"))
  .action(async (o: { stateDir: string; prefix?: string }) => {
    try {
      requireRoot("down");
      const layout = new Layout(o.stateDir);
      await down(layout, o.prefix, out);
      const removed = uninstallGardenctlConfig(layout);
      if (removed) out(removed);
    } catch (err) {
      fail(err);
    }
  });

program
  .command("supervise", { hidden: true })
  .addOption(stateDir())
  .addOption(prefix())
  .requiredOption("--ports <garden,seed,shoot>")
  .addOption(publicCidr())
  .action(async (o: { stateDir: string; prefix: string; ports: string; publicCidr: string }) => {
    const log = (line: string): void => void process.stdout.write(`gardener-local: ${line}\n`);
    process.exit(await superviseMain({ layout: new Layout(o.stateDir), ports: parsePorts(o.ports), prefix: o.prefix, publicCidr: parsePublicCidr(o.publicCidr), log }));
  });

await program.parseAsync(process.argv);
