// terminal-controller-manager: the composition root (docs/terminals.md#terminal-controller-manager).
// Parses flags, reads the webhook server's certificate, connects to the garden, serves the Terminal
// webhooks, registers them when --webhook-url is given, runs the terminal and heartbeat controllers
// (with leader election unless disabled), prints a ready line and stops cleanly on SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createTerminalControllerManager } from "../terminal/app.ts";
import { parseTerminalControllerManagerFlags } from "../terminal/options.ts";
import { componentLogger, flagsOrExit, leaderElectionOf, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseTerminalControllerManagerFlags(process.argv.slice(2)));
const logger = componentLogger("terminal-controller-manager", flags.logLevel);

const tcm = await startOrExit(logger, () => {
  const kc = new KubeConfig();
  kc.loadFromFile(flags.kubeconfig);
  const name = "terminal-controller-manager";
  return createTerminalControllerManager({
    gardenClient: new Client(kc, { fieldManager: name, userAgent: name }),
    gardenKubeConfig: kc,
    logger,
    server: flags.metricsBindAddress ?? false,
    leaderElection: leaderElectionOf(flags),
    webhook: {
      certPem: readFileSync(join(flags.webhookServerCertDir, "tls.crt"), "utf8"),
      keyPem: readFileSync(join(flags.webhookServerCertDir, "tls.key"), "utf8"),
      host: flags.webhookBindAddress.host,
      port: flags.webhookBindAddress.port,
      ...(flags.webhookURL && flags.webhookCAFile ? { register: { url: flags.webhookURL, caBundle: readFileSync(flags.webhookCAFile).toString("base64") } } : {}),
    },
    config: { timeToLiveMs: flags.timeToLiveMs, maxObjectSize: flags.maxObjectSize, maxTerminalsPerUser: flags.maxTerminalsPerUser, maxTerminals: flags.maxTerminals, honourServiceAccountRefHostCluster: flags.honourServiceAccountRefHostCluster, honourCleanupProjectMembership: flags.honourCleanupProjectMembership },
  });
});
logger.info({ webhookPort: tcm.webhookPort(), leaderElection: flags.leaderElect }, "started");
process.stdout.write(`terminal-controller-manager started; webhooks on https://${flags.webhookBindAddress.host}:${tcm.webhookPort()}${metricsSuffix(tcm.manager)}\n`);
stopOnSignals(tcm, { onSignal: (signal) => logger.info({ signal }, "stopping") });
