// An in-process gardener-apiserver with an admin client, as most integration tests need one: a fresh
// data directory (or the given one), port 0, no compaction timer, silent logs (set
// TEST_APISERVER_LOG_LEVEL to see them), and one stop() that closes the client, stops the server and
// removes the directory it created.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { type ApiServerOptions, parseOptions } from "../../src/apiserver/server/options.ts";
import { type RunningServer, type StartDeps, startApiServer } from "../../src/apiserver/server/server.ts";
import { Client } from "../../src/client/client.ts";
import { gardenAdmissionPlugins } from "../../src/plugins/garden.ts";

export interface InProcessOptions {
  /** Further gardener-apiserver flags, e.g. ["--enable-bootstrap-token-auth"]. */
  flags?: string[];
  /** The data directory (kept by stop()); default: a fresh temporary one (removed by stop()). */
  dataDir?: string;
  /** The admin client's field manager; default "test". */
  fieldManager?: string;
  /** The server's log level; default TEST_APISERVER_LOG_LEVEL or "silent". */
  logLevel?: string;
  clock?: StartDeps["clock"];
  /** The garden's admission plugins; default: the garden's own (plugins/garden.ts) when the flags include --enable-gardener-apis. */
  gardenAdmission?: StartDeps["gardenAdmission"];
}

export interface InProcessServer {
  server: RunningServer;
  /** A client with the server's admin kubeconfig (system:masters). */
  admin: Client;
  dataDir: string;
  /** The parsed flags the server runs with (e.g. `certDir`, where its PKI is). */
  options: ApiServerOptions;
  /** Closes the admin client, stops the server and removes a data directory it created. Idempotent. */
  stop(): Promise<void>;
}

export async function startInProcessApiServer(o: InProcessOptions = {}): Promise<InProcessServer> {
  const created = o.dataDir === undefined ? mkdtempSync(join(tmpdir(), "apiserver-it-")) : undefined;
  const dataDir = o.dataDir ?? created!;
  const removeDir = (): void => {
    if (created) rmSync(created, { recursive: true, force: true });
  };
  const parsed = parseOptions(["--data-dir", dataDir, "--secure-port", "0", "--etcd-compaction-interval", "0s", ...(o.flags ?? [])]);
  if (parsed.kind !== "options") {
    removeDir();
    throw new Error(`gardener-apiserver flags: ${parsed.stderr}`);
  }
  let server: RunningServer;
  try {
    const logger = pino({ level: o.logLevel ?? process.env.TEST_APISERVER_LOG_LEVEL ?? "silent" });
    const gardenAdmission = o.gardenAdmission ?? (parsed.options.gardenerApis ? gardenAdmissionPlugins() : undefined);
    server = await startApiServer(parsed.options, { logger, ...(o.clock ? { clock: o.clock } : {}), ...(gardenAdmission ? { gardenAdmission } : {}) });
  } catch (err) {
    removeDir();
    throw err;
  }
  const admin = Client.fromKubeconfigFile(server.adminKubeconfigPath, { fieldManager: o.fieldManager ?? "test" });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      admin.close();
      await server.stop();
      removeDir();
    })());
  return { server, admin, dataDir, options: parsed.options, stop };
}
