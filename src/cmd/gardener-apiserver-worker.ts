// A worker thread of `gardener-apiserver --workers N` (started by the primary, never directly):
// the same wiring as gardener-apiserver.ts, serving the connections the primary hands it.
import { serveAsWorker, workerRole } from "../apiserver/server/workers/worker.ts";
import { gardenAdmissionPlugins } from "../plugins/garden.ts";
import { componentLogger } from "./component.ts";

const role = workerRole();
if (!role) throw new Error("gardener-apiserver-worker runs only as a worker thread of gardener-apiserver --workers");
const logger = componentLogger("gardener-apiserver", role.options.logLevel).child({ worker: role.index });
await serveAsWorker({ logger, gardenAdmission: gardenAdmissionPlugins() });
