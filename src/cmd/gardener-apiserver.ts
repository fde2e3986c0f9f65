// gardener-apiserver: the composition root. Parses flags, wires the garden admission plugins,
// starts the server (with --workers N: the primary, whose worker threads run
// gardener-apiserver-worker.ts), prints where it serves, and stops gracefully on SIGTERM/SIGINT
// (exit 0). Bad flags: one line on stderr, exit 2.
import { join } from "node:path";
import { parseOptions } from "../apiserver/server/options.ts";
import { componentLogger, flagsOrExit, orExit } from "./component.ts";

const options = flagsOrExit(parseOptions(process.argv.slice(2)));
const logger = componentLogger("gardener-apiserver", options.logLevel);
// Each path loads only what it runs: the primary of --workers does not serve requests itself.
const running = await orExit(logger, async () => {
  if (options.workers === 1) {
    const [{ startApiServer }, { gardenAdmissionPlugins }] = await Promise.all([import("../apiserver/server/server.ts"), import("../plugins/garden.ts")]);
    return startApiServer(options, { logger, gardenAdmission: gardenAdmissionPlugins() });
  }
  const { startWorkers } = await import("../apiserver/server/workers/primary.ts");
  const entry = new URL("./gardener-apiserver-worker.ts", import.meta.url).href;
  const primary = await startWorkers(options, { entry, logger });
  return { ...primary, adminKubeconfigPath: join(options.dataDir, "admin.kubeconfig"), schedulerKubeconfigPath: join(options.dataDir, "scheduler.kubeconfig") };
});
logger.info({ url: running.url, dataDir: options.dataDir, storage: options.etcdServers.length ? "etcd" : "sqlite", workers: options.workers }, "serving");
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
