// vpn-seed-proxy: the seed CONNECT proxy's composition root (docs/reversed-vpn.md#seed-connect-proxy). One per
// seed, on the seed's public address: parses flags, connects to the seed, lists the vpn-seed-servers'
// Endpoints, listens, prints a ready line and stops cleanly on SIGTERM/SIGINT.
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { SeedProxy } from "../vpn/seedproxy.ts";
import { parseSeedProxyFlags } from "../vpn/seedproxy-options.ts";
import { componentLogger, flagsOrExit, orExit } from "./component.ts";

const flags = flagsOrExit(parseSeedProxyFlags(process.argv.slice(2)));
const logger = componentLogger("vpn-seed-proxy", flags.logLevel);
const proxy = await orExit(logger, async () => {
  const p = new SeedProxy({
    client: Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "vpn-seed-proxy", userAgent: "vpn-seed-proxy" }),
    listen: flags.bindAddress,
    ...(flags.healthBindAddress ? { health: flags.healthBindAddress } : {}),
    log: logger,
  });
  const { proxy: at, health } = await p.start();
  process.stdout.write(`vpn-seed-proxy: CONNECT proxy on ${at.address}:${at.port}${health ? `, health on http://${health.address}:${health.port}` : ""}\n`);
  return p;
});
stopOnSignals({ stop: () => proxy.close() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
