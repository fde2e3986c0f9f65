// vpn-shoot-client's health process: runs inside the client's namespace on the shoot's node network
// (started there through host/ beside the OpenVPN clients, docs/reversed-vpn.md#vpn-shoot-client-health)
// and serves /healthz, /readyz and /metrics on 8080. Usage: vpn-shoot-client --config <file> [--log-level info].
import { readFile } from "node:fs/promises";
import { isIPv4 } from "node:net";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { ShootHealth, type ShootHealthOptions } from "../vpn/shoothealth.ts";
import { argFlag, componentLogger, orExit } from "./component.ts";

const flag = argFlag("vpn-shoot-client --config <file> [--log-level info]");

async function load(file: string): Promise<ShootHealthOptions> {
  const text = await readFile(file, "utf8");
  if (text.length > 16 * 1024) throw new Error(`${file} exceeds 16 KiB`);
  const c = JSON.parse(text) as ShootHealthOptions;
  const clientsOk = Array.isArray(c.clients) && c.clients.length >= 1 && c.clients.length <= 2 && c.clients.every((x) => /^vpn-seed-server(-[01])?$/.test(x.server) && typeof x.management === "string");
  if (!isIPv4(c.listenAddress) || !clientsOk) throw new Error(`${file}: needs listenAddress (IPv4) and one or two clients {server, management}`);
  return { listenAddress: c.listenAddress, clients: c.clients, ...(c.port !== undefined ? { port: c.port } : {}) };
}

const logger = componentLogger("vpn-shoot-client", flag("log-level", "info"));
const health = await orExit(logger, async () => {
  const h = new ShootHealth(await load(flag("config")));
  const address = await h.start();
  process.stdout.write(`vpn-shoot-client: health on ${address.address}:${address.port}\n`);
  return h;
});
stopOnSignals({ stop: () => health.close() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
