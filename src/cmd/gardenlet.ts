// gardenlet: the composition root. Parses flags, connects to the garden (as its seed's identity)
// and to the seed, runs the bastion controllers (and, with their flags, the sshkeypair and vpn controllers), prints a ready line and stops cleanly on
// SIGTERM/SIGINT (exit 0). Bad flags: one line on stderr, exit 2.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createGardenlet } from "../gardenlet/app.ts";
import { parseGardenletFlags } from "../gardenlet/options.ts";
import { staticShootClients } from "../gardenlet/controller/sshkeypair/reconciler.ts";
import { EC_P256 } from "../apiserver/certs/keys.ts";
import type { VpnOptions } from "../gardenlet/controller/vpn/add.ts";
import type { GardenletFlags } from "../gardenlet/options.ts";
import { VPN_KEY_ALGORITHM, vpnIssuer } from "../vpn/credentials.ts";
import { componentLogger, flagsOrExit, metricsSuffix, startOrExit } from "./component.ts";

const flags = flagsOrExit(parseGardenletFlags(process.argv.slice(2)));
const logger = componentLogger("gardenlet", flags.logLevel);
const connect = (file: string) => Client.fromKubeconfigFile(file, { fieldManager: "gardenlet", userAgent: "gardenlet" });

/** The `vpn` controller's options: the issuer (src/vpn/, which the gardenlet does not import) and the configured addresses. */
function vpnOptions(f: GardenletFlags): VpnOptions {
  return {
    issuer: vpnIssuer(f.vpnKeyAlgorithm === "ecdsa-p256" ? EC_P256 : VPN_KEY_ALGORITHM),
    addresses: { addressesFor: (namespace, count) => { const a = f.vpnServerAddresses.get(namespace); return a && a.length >= count ? a.slice(0, count) : undefined; } },
    egressSecretsDir: f.vpnEgressSecretsDir,
    careIntervalMs: f.shootCareSyncPeriodMs,
  };
}

const gardenlet = await startOrExit(logger, () =>
  createGardenlet({
    gardenClient: connect(flags.gardenKubeconfig),
    seedClient: connect(flags.seedKubeconfig),
    seedName: flags.seedName,
    logger,
    server: flags.metricsBindAddress ?? false,
    sshKeypairPoolSize: flags.sshKeypairPoolSize,
    ...(flags.shootKubeconfigs.size > 0 ? { shootClients: staticShootClients(new Map([...flags.shootKubeconfigs].map(([key, file]) => [key, connect(file)]))) } : {}),
    ...(flags.vpnServerAddresses.size > 0 ? { vpn: vpnOptions(flags) } : {}),
  }),
);
logger.info({ seed: flags.seedName }, "started");
process.stdout.write(`gardenlet started for seed ${flags.seedName}${metricsSuffix(gardenlet.manager)}\n`);
stopOnSignals({ stop: () => gardenlet.stop(), done: () => gardenlet.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
