// vpn-seed-server: runs inside a control plane's VPN namespace (started there through host/ by whoever
// deploys it, docs/reversed-vpn.md#health): the egress proxy on 9443 and health and metrics on 15000,
// from the OpenVPN servers' management sockets. Usage: vpn-seed-server --config <file> [--log-level info].
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { SeedServer } from "../vpn/seedserver.ts";
import { loadSeedServerConfig, seedServerOptions } from "../vpn/seedserver-config.ts";
import { argFlag, componentLogger, orExit } from "./component.ts";

const flag = argFlag("vpn-seed-server --config <file> [--log-level info]");

const logger = componentLogger("vpn-seed-server", flag("log-level", "info"));
const server = await orExit(logger, async () => {
  const s = new SeedServer({ ...(await seedServerOptions(await loadSeedServerConfig(flag("config")))), log: logger });
  const { egress, health } = await s.start();
  process.stdout.write(`vpn-seed-server: egress proxy on ${egress.address}:${egress.port}, health on ${health.address}:${health.port}\n`);
  return s;
});
stopOnSignals({ stop: () => server.close() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
