// gardener-apiserver: the composition root. Parses flags, wires the garden admission plugins,
// starts the server, prints where it serves, and stops gracefully on SIGTERM/SIGINT (exit 0).
// Bad flags: one line on stderr, exit 2.
import { parseOptions } from "../apiserver/server/options.ts";
import { startApiServer } from "../apiserver/server/server.ts";
import { gardenAdmissionPlugins } from "../plugins/garden.ts";
import { componentLogger, flagsOrExit, orExit } from "./component.ts";

const options = flagsOrExit(parseOptions(process.argv.slice(2)));
const logger = componentLogger("gardener-apiserver", options.logLevel);
const running = await orExit(logger, () => startApiServer(options, { logger, gardenAdmission: gardenAdmissionPlugins() }));
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
