// gardener-apiserver: the composition root. Parses flags, wires the garden admission plugins,
// starts the server, prints where it serves, and stops gracefully on SIGTERM/SIGINT (exit 0).
// Bad flags: one line on stderr, exit 2.
import { pino } from "pino";
import { parseOptions } from "../apiserver/server/options.ts";
import { startApiServer } from "../apiserver/server/server.ts";
import { gardenAdmissionPlugins } from "../plugins/garden.ts";

const parsed = parseOptions(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const options = parsed.options;
const logger = pino({ level: options.logLevel, base: { component: "gardener-apiserver" } }, pino.destination(2));

let server;
try {
  server = await startApiServer(options, { logger, gardenAdmission: gardenAdmissionPlugins() });
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const running = server;
logger.info({ url: running.url, dataDir: options.dataDir, storage: options.etcdServers.length ? "etcd" : "sqlite" }, "serving");
process.stdout.write(`serving on ${running.url}\nadmin kubeconfig: ${running.adminKubeconfigPath}\nscheduler kubeconfig: ${running.schedulerKubeconfigPath}\n`);

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping");
  running.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, "error while stopping");
      process.exit(1);
    },
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
