// gardener-node-agent: the composition root. Parses flags, connects to the shoot API server, runs the
// node agent, prints a ready line and stops cleanly on SIGTERM/SIGINT (exit 0). Bad flags: one line on
// stderr, exit 2. With a --root other than "/" no user is created and sshd is not touched.
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
import { componentLogger, flagsOrExit, orExit } from "./component.ts";

const flags = flagsOrExit(parseNodeAgentFlags(process.argv.slice(2)));
const logger = componentLogger("gardener-node-agent", flags.logLevel);

let identity: NodeIdentity | undefined;
let endpoint: FileKubeletServer | undefined;
const running = await orExit(logger, async () => {
  // With a bootstrap kubeconfig the node first gets its own identity (docs/node-bootstrap.md).
  if (flags.bootstrapKubeconfig) {
    identity = await startNodeIdentity({ nodeName: flags.nodeName, kubeconfig: flags.kubeconfig, bootstrapKubeconfig: flags.bootstrapKubeconfig, clock: realClock, logger });
  }
  const agent = createNodeAgent({
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
  return agent;
});

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
