// gardener-node-agent: the composition root. Parses flags, connects to the shoot API server, runs the
// node agent, prints a ready line and stops cleanly on SIGTERM/SIGINT (exit 0). Bad flags: one line on
// stderr, exit 2. With a --root other than "/" no user is created and sshd is not touched.
import { pino } from "pino";
import { Client } from "../client/client.ts";
import { stopOnSignals } from "../controllerruntime/signals.ts";
import { createNodeAgent } from "../nodeagent/agent.ts";
import { parseNodeAgentFlags } from "../nodeagent/options.ts";
import { RecordingSshd } from "../nodeagent/sshd.ts";
import { apiServerOf } from "../nodeagent/kubelet/setup.ts";
import { type NodeIdentity, startNodeIdentity } from "../nodeagent/bootstrap/identity.ts";
import { interfaceIPv4 } from "../nodeagent/agent.ts";
import { hostname } from "node:os";
import { realClock } from "../utils/clock.ts";
import { type FileKubeletServer, serveKubeletFromFiles } from "../nodeagent/kubelet/server/from-files.ts";

const parsed = parseNodeAgentFlags(process.argv.slice(2));
if (parsed.kind === "exit") {
  process.stdout.write(parsed.stdout);
  process.stderr.write(parsed.stderr);
  process.exit(parsed.code);
}
const flags = parsed.options;
const logger = pino({ level: flags.logLevel, base: { component: "gardener-node-agent" } }, pino.destination(2));

let agent;
let identity: NodeIdentity | undefined;
let endpoint: FileKubeletServer | undefined;
try {
  // With a bootstrap kubeconfig the node first gets its own identity (docs/node-bootstrap.md).
  if (flags.bootstrapKubeconfig) {
    identity = await startNodeIdentity({ nodeName: flags.nodeName, kubeconfig: flags.kubeconfig, bootstrapKubeconfig: flags.bootstrapKubeconfig, clock: realClock, logger });
  }
  agent = createNodeAgent({
    client: identity?.client ?? Client.fromKubeconfigFile(flags.kubeconfig, { fieldManager: "gardener-node-agent", userAgent: "gardener-node-agent" }),
    nodeName: flags.nodeName,
    pool: flags.pool,
    root: flags.root,
    secretName: flags.secretName,
    hostKeyDir: flags.hostKeyDir,
    ...(flags.root === "/" ? {} : { sshd: new RecordingSshd() }),
    logger,
    server: false,
    ...(flags.kubelet ? { kubelet: { stateDir: flags.kubeletStateDir, podCIDR: flags.podCIDR, apiServer: apiServerOf(flags.kubeconfig) } } : {}),
  });
  await agent.start();
} catch (err) {
  logger.error({ err }, "failed to start");
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
const running = agent;

// The kubelet serving certificate and, with --kubelet, the kubelet endpoint (10250: exec, attach and
// logs for the API server; docs/exec-attach-logs.md). Off the start path: until they work the agent
// runs on (SSH, pods), and a failure is retried, never fatal.
async function serve(certFile: string, keyFile: string): Promise<void> {
  const ip = interfaceIPv4();
  // Without a bootstrap kubeconfig the identity is made here, once: a retry reuses it.
  identity ??= await startNodeIdentity({ nodeName: flags.nodeName, kubeconfig: flags.kubeconfig, clock: realClock, logger });
  await identity.keepServingCertificate({
    hostname: hostname(),
    ipAddresses: ip ? [ip] : [],
    certFile,
    keyFile,
    onRenewed: () => void endpoint?.reload().catch((err: unknown) => logger.warn({ err }, "kubelet endpoint: renewed certificate not loaded")),
  });
  if (running.kubelet && !endpoint) {
    endpoint = await serveKubeletFromFiles({ kubelet: running.kubelet, certFile, keyFile, kubeconfig: flags.kubeconfig, ...(flags.clientCAFile ? { clientCAFile: flags.clientCAFile } : {}) });
    logger.info({ port: endpoint.port }, "kubelet endpoint serving");
  }
}
let serveRetry: NodeJS.Timeout | undefined;
if (flags.tlsCertFile && flags.tlsPrivateKeyFile) {
  const [certFile, keyFile] = [flags.tlsCertFile, flags.tlsPrivateKeyFile];
  const attempt = (): void =>
    void serve(certFile, keyFile).catch((err: unknown) => {
      logger.warn({ err }, "kubelet serving certificate or endpoint failed; retrying in 30 s");
      serveRetry = setTimeout(attempt, 30_000);
    });
  attempt();
}
logger.info({ node: flags.nodeName, pool: flags.pool }, "started");
process.stdout.write(`gardener-node-agent started for node ${flags.nodeName} (pool ${flags.pool})\n`);
stopOnSignals({ stop: () => (clearTimeout(serveRetry), identity?.stop(), void endpoint?.close(), running.stop()), done: () => running.manager.done() }, { onSignal: (signal) => logger.info({ signal }, "stopping") });
