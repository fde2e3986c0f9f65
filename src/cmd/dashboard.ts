// dashboard: serves the browser terminal (web/dist, built by `npm run build:dashboard`) and relays
// terminals to pods of one API server, acting as each browser's user (docs/dashboard.md).
// Usage: dashboard --api-server <url> [--api-ca <file>] [--address 127.0.0.1] [--port 8080]
//        [--tls-cert <file> --tls-key <file>] [--web-root web/dist] [--log-level info]
//        [--recordings-dir <dir>] [--recording-max-bytes <n>] [--record-input] [--terminal-config <file>]
//        [--kubeconfig <file>: the dashboard's own read-only garden credential, to list members' Projects]
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { parse } from "yaml";
import { MIN_CAST_BYTES } from "../dashboard/recordings/asciicast.ts";
import { startDashboard } from "../dashboard/server.ts";
import { terminalConfigFromFile } from "../dashboard/terminals/config.ts";
import { Client } from "../client/client.ts";
import { componentLogger, orExit } from "./component.ts";

const USAGE = "usage: dashboard --api-server <url> [--api-ca <file>] [--address 127.0.0.1] [--port 8080] [--tls-cert <file> --tls-key <file>] [--web-root <dir>] [--recordings-dir <dir>] [--recording-max-bytes <n>] [--record-input] [--terminal-config <file: JSON or YAML, docs/dashboard.md#seed-hosts>] [--kubeconfig <file: the dashboard's own garden credential, to list members' Projects>]";

/** Where sessions are recorded unless --recordings-dir says otherwise (docs/dashboard.md#recordings). */
function defaultRecordingsDir(): string {
  const state = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "gardener-dashboard", "recordings");
}

function flag(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const apiServer = flag("api-server");
if (!apiServer) {
  process.stderr.write(`error: --api-server is required\n${USAGE}\n`);
  process.exit(2);
}
const maxBytes = Number(flag("recording-max-bytes", String(64 * 1024 * 1024)));
if (!Number.isInteger(maxBytes) || maxBytes < MIN_CAST_BYTES) {
  process.stderr.write(`error: --recording-max-bytes must be an integer of at least ${MIN_CAST_BYTES}\n${USAGE}\n`);
  process.exit(2);
}
const logger = componentLogger("dashboard", flag("log-level", "info")!);
const dashboard = await orExit(logger, async () => {
  const ca = flag("api-ca");
  const cert = flag("tls-cert"), key = flag("tls-key");
  const terminalConfigFile = flag("terminal-config");
  const terminalConfig = terminalConfigFile ? terminalConfigFromFile(parse(await readFile(terminalConfigFile, "utf8"))) : undefined;
  const kubeconfig = flag("kubeconfig");
  const projectReader = kubeconfig ? Client.fromKubeconfigFile(kubeconfig, { fieldManager: "dashboard", userAgent: "dashboard" }) : undefined;
  const d = await startDashboard({
    ...(projectReader ? { projectReader } : {}),
    apiServer: { url: apiServer, caPem: ca ? await readFile(ca, "utf8") : undefined },
    webRoot: flag("web-root", fileURLToPath(new URL("../../web/dist", import.meta.url)))!,
    address: flag("address", "127.0.0.1"),
    port: Number(flag("port", "8080")),
    recordings: { dir: flag("recordings-dir", defaultRecordingsDir())!, maxBytes, input: process.argv.includes("--record-input") },
    tls: cert && key ? { certPem: await readFile(cert, "utf8"), keyPem: await readFile(key, "utf8") } : undefined,
    ...(terminalConfig ? { terminals: { config: terminalConfig } } : {}),
  });
  process.stdout.write(`dashboard: serving ${d.url}\n`);
  return d;
});
stopOnSignals({ stop: () => dashboard.close() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
