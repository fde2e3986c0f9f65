// Assembles a running API server: PKI, storage (+ watch cache), the registry with the built-in
// kinds, access reviews and serviceaccounts/token, one GenericStore per definition (created
// lazily, dropped when its definition goes), NamespaceLifecycle admission, authentication,
// authorization, the server's own controllers, periodic compaction, the HTTPS listener and the
// admin and scheduler kubeconfigs.
import { mkdir, readFile } from "node:fs/promises";
import { createServer as createPlainServer, type IncomingMessage, type Server as PlainServer, type ServerResponse } from "node:http";
import type { MessagePort } from "node:worker_threads";
import type { Duplex } from "node:stream";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { pino, type Logger } from "pino";
import type { AuditSink } from "../audit/log.ts";
import { collectDefaultMetrics, Registry } from "prom-client";
import { newServiceUnavailable } from "../../apimachinery/errors.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import { AdmissionChain } from "../admission/chain.ts";
import type { AdmissionPlugin } from "../admission/types.ts";
import { NamespaceLifecycle } from "../admission/namespace-lifecycle.ts";
import { PodDefaultsAdmission } from "../admission/pod-defaults.ts";
import { PodSecurityAdmission } from "../admission/podsecurity/admission.ts";
import { ServiceAccountAdmission } from "../admission/serviceaccount.ts";
import { kubernetesServiceIP, parseServiceRange, ServiceIPAllocation } from "../admission/service-ip.ts";
import { CertificateSigning, CertificateSubjectRestriction } from "../admission/certificates.ts";
import { NodeRestriction } from "../admission/noderestriction/admission.ts";
import { removeImpersonationHeaders, impersonate } from "../authentication/impersonation.ts";
import { forbiddenMessage } from "../authorization/forbidden.ts";
import { writeKubeconfig } from "../certs/kubeconfig.ts";
import { type ApiHandler, createHandler } from "../endpoints/handler.ts";
import type { WatchTally } from "../endpoints/watch-tally.ts";
import { writeError } from "../endpoints/responses.ts";
import { writeRawError } from "../endpoints/upgrade.ts";
import type { InternalClient } from "../registry/client.ts";
import { GenericStore } from "../registry/generic/store.ts";
import { RBACEscalationPrevention } from "../registry/rbac/policy.ts";
import type { ObjectStore } from "../registry/generic/interface.ts";
import { LocalClient } from "../registry/internal-client.ts";
import { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import { compileSchema } from "../schema/compile.ts";
import { TokenSigner } from "../serviceaccount/signer.ts";
import { startAudit } from "./audit.ts";
import { buildAuthentication, buildAuthorization } from "./auth.ts";
import { startCertificateControllers } from "./certificates.ts";
import { electControllers, startLedControllers, startReplicaControllers } from "./controllers.ts";
import { registerDefinitions } from "./definitions.ts";
import type { ApiServerOptions } from "./options.ts";
import { openStorage, startCompaction } from "./storage.ts";
import { webhookAdmission } from "./webhooks.ts";
import { clientHost, hostPort, loadTls } from "./tls.ts";
import { type Listener as SecureListener, listenSecure } from "./serving.ts";
import { serveRelayed } from "./workers/relay-worker.ts";

export interface StartDeps {
  /** Default: pino JSON on stderr at options.logLevel. */
  logger?: Logger;
  clock?: Clock;
  /**
   * The garden's admission plugins (src/plugins/garden.ts), required with --enable-gardener-apis:
   * the composition root wires them, so the server does not depend on plugins/.
   */
  gardenAdmission?: AdmissionPlugin[];
  /** Set when this server is one worker of `--workers` (docs/high-availability.md#workers). */
  worker?: WorkerRole;
}

/** What a worker thread gets from the primary, which owns the listening socket and the audit log. */
export interface WorkerRole {
  index: number;
  /** The port the primary listens on (what clients and kubeconfigs use). */
  port: number;
  /** The relay of the connections the primary accepted for this worker. */
  connections: MessagePort;
  /** Where audit events go (the primary writes the one log), when auditing is on. */
  auditSink?: AuditSink;
  /** SQLite: the primary owns the database; storage calls go to it through this port. */
  storage?: MessagePort;
  /** The watch counts every worker shares (the bounds hold for the server as a whole). */
  watchTally?: WatchTally;
  /** Shares this worker's metrics with the others; returns what /metrics serves: every worker's together. */
  shareMetrics?(local: Registry): () => Promise<string>;
}

export interface RunningServer {
  /** https://<host>:<port> */
  url: string;
  port: number;
  /** The CA clients trust for this server. */
  caPem: string;
  adminKubeconfigPath: string;
  /** <data-dir>/scheduler.kubeconfig: the user system:kube-scheduler. */
  schedulerKubeconfigPath: string;
  registry: ResourceRegistry;
  /** In-process access as system:apiserver. */
  client: InternalClient;
  /** Stops accepting, ends watches cleanly (clients re-watch), stops controllers, closes storage. */
  stop(): Promise<void>;
}

/** How long stop() lets in-flight requests finish before closing their connections. */
const DRAIN_MS = 5000;

interface Listener {
  port: number;
  /** Stops taking connections and drains the open ones (up to DRAIN_MS). */
  close(): Promise<void>;
}

/** HTTP/2 and HTTP/1.1 over TLS (serving.ts). */
function secureListener(l: SecureListener): Listener {
  return { port: l.port, close: () => l.close(DRAIN_MS) };
}

/**
 * A worker's server takes the connections the primary relays to it (the primary did their TLS,
 * offering HTTP/1.1 only: docs/adr/0016-http2.md).
 */
function relayedListener(onRequest: (req: IncomingMessage, res: ServerResponse) => void, onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void, worker: WorkerRole): Listener {
  const server: PlainServer = createPlainServer(onRequest);
  server.on("upgrade", onUpgrade);
  const connections = serveRelayed(server, worker.connections);
  return {
    port: worker.port,
    close: async () => {
      server.close();
      const deadline = Date.now() + DRAIN_MS;
      while (connections.size > 0 && Date.now() < deadline) {
        server.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 25));
      }
      connections.destroyAll();
    },
  };
}

export async function startApiServer(o: ApiServerOptions, deps: StartDeps = {}): Promise<RunningServer> {
  if (o.gardenerApis && !deps.gardenAdmission) throw new Error("the Gardener APIs need their admission plugins (StartDeps.gardenAdmission)");
  const logger = deps.logger ?? pino({ level: o.logLevel }, pino.destination(2));
  const clock = deps.clock ?? realClock;
  await mkdir(o.dataDir, { recursive: true, mode: 0o700 });
  const tls = await loadTls(o);

  // Listen first: the default service-account issuer names the actual port. Until the handler
  // is ready every request gets 503.
  let handler: ApiHandler | undefined;
  const starting = () => newServiceUnavailable("the server is starting up");
  const onRequest = (req: IncomingMessage, res: ServerResponse) => (handler ? handler.request(req, res) : writeError(res, starting()));
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => (handler ? handler.upgrade(req, socket, head) : writeRawError(socket, starting()));
  const listener = deps.worker
    ? relayedListener(onRequest, onUpgrade, deps.worker)
    : secureListener(
        await listenSecure(
          { tls: { key: tls.key, cert: tls.cert, ca: tls.clientCAs }, maxStreams: o.http2MaxStreamsPerConnection, request: onRequest, upgrade: onUpgrade, tlsClientError: (err) => logger.debug({ err }, "TLS handshake failed") },
          o.securePort,
          o.bindAddress,
        ),
      );
  const port = listener.port;
  // Work done once per server, not once per worker: the first worker does it.
  const primaryWorker = !deps.worker || deps.worker.index === 0;
  const url = `https://${hostPort(clientHost(o), port)}`;
  const issuers = o.serviceAccountIssuers.length ? o.serviceAccountIssuers : [url];

  // Undone in reverse order on stop (after the listener is drained) or when start-up fails.
  const cleanups: (() => unknown)[] = [];
  const runCleanups = async () => {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (err) {
        logger.warn({ err }, "error while stopping");
      }
    }
    cleanups.length = 0;
  };

  try {
    const audit = await startAudit(o, logger, deps.worker?.auditSink);
    cleanups.push(() => audit.close());
    const metrics = new Registry();
    collectDefaultMetrics({ register: metrics });
    const stack = await openStorage(o, clock, deps.worker?.storage, metrics);
    cleanups.push(() => stack.close());
    const storage = stack.storage;

    const registry = new ResourceRegistry();
    const gardenAdmission = o.gardenerApis ? (deps.gardenAdmission ?? []) : [];
    // Plugins that authorize custom verbs (the garden's CustomVerbAuthorizer) ask the authorizer built below.
    for (const p of gardenAdmission) p.setAuthorizer?.(() => authz.authorizer);
    // RBAC writes are checked against the authorizer built below (resolved per request).
    const rbacEscalation = new RBACEscalationPrevention(() => authz.authorizer);
    const serviceRange = parseServiceRange(o.serviceClusterIPRange);
    const podAdmission = [new ServiceAccountAdmission(), new PodDefaultsAdmission(), new ServiceIPAllocation(serviceRange, clock), new PodSecurityAdmission()];
    const certificateAdmission = [new CertificateSigning(() => authz.authorizer), new CertificateSubjectRestriction()];
    const webhooks = webhookAdmission(metrics, logger, tls.kubelet.dial);
    // NodeRestriction is always on: it only narrows node identities (docs/node-authorization.md).
    // Admission webhooks come last: after every built-in plugin in both phases (docs/admission-webhooks.md).
    const admission = new AdmissionChain([new NamespaceLifecycle(), ...podAdmission, new NodeRestriction(), ...gardenAdmission, rbacEscalation, ...certificateAdmission, webhooks.plugin]);
    const stores = new Map<ResourceDefinition, ObjectStore>();
    // The stores' admission needs the client, which needs the stores: resolved lazily.
    const makeStore = (def: ResourceDefinition): ObjectStore =>
      new GenericStore(def, { storage, clock, admission, schema: compileSchema(def.schema), client: () => client });
    const storeFor = (def: ResourceDefinition): ObjectStore => {
      let s = stores.get(def);
      if (!s) stores.set(def, (s = makeStore(def)));
      return s;
    };
    // Stores of definitions that were removed or replaced (CRDs) are dropped.
    registry.onChange(() => {
      const live = new Set(registry.all());
      for (const def of stores.keys()) if (!live.has(def)) stores.delete(def);
    });
    const client = new LocalClient(registry, storeFor, clock);

    const signingKeyPem = o.serviceAccountSigningKeyFile ? await readFile(o.serviceAccountSigningKeyFile, "utf8") : tls.pki.serviceAccount.privateKeyPem;
    const signer = new TokenSigner({ privateKeyPem: signingKeyPem, issuer: issuers[0]!, clock });
    const authn = await buildAuthentication({
      tokenAuthFile: o.tokenAuthFile,
      bootstrapTokens: o.enableBootstrapTokenAuth,
      serviceAccountKeyPems: await Promise.all(o.serviceAccountKeyFiles.map((f) => readFile(f, "utf8"))),
      signingPublicKey: signer.publicKey,
      issuers,
      anonymous: o.anonymousAuth,
      client,
      clock,
    });
    const authz = buildAuthorization(o.authorizationModes, client, clock, logger);
    cleanups.push(() => authz.stop());
    const garden = o.gardenerApis ? { bastionTTLMs: o.bastionTimeToLiveMs, clock, credentialsRotationIntervalMs: o.shootCredentialsRotationIntervalMs } : undefined;
    registerDefinitions(registry, { makeStore, signer, client, issuers, authorizer: authz.authorizer, tokenAuthenticator: authn.tokenAuthenticator, garden, kubelet: tls.kubelet, admission });

    await webhooks.configurations.start(client, { clock, onError: (err) => logger.warn({ err }, "watching webhook configurations failed, relisting") });
    cleanups.push(() => webhooks.configurations.stop());

    const kubernetesService = { clusterIP: kubernetesServiceIP(serviceRange), address: clientHost(o), port };
    const controllerDeps = { client, registry, clock, logger, gardenPolicy: o.gardenerApis, caPem: tls.serverCaPem, kubernetesService, nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs };
    const replicaControllers = await startReplicaControllers(controllerDeps);
    cleanups.push(() => replicaControllers.stop());
    await authz.start();
    const lead = async () => {
      const led = await startLedControllers(controllerDeps);
      try {
        const certificates = await startCertificateControllers({
          client,
          clock,
          logger,
          authorizer: () => authz.authorizer,
          ca: { certPem: tls.pki.ca.certPem, keyPem: tls.pki.ca.keyPem },
          maxSigningDurationMs: o.clusterSigningDurationMs,
        });
        return { stop: () => (certificates.stop(), led.stop()) };
      } catch (err) {
        led.stop();
        throw err;
      }
    };
    // Stable across restarts of this replica (its data dir), distinct between replicas.
    // Workers of one server are distinct candidates (each restarted worker keeps its identity).
    const workerSuffix = deps.worker ? `_w${deps.worker.index}` : "";
    const identity = `${hostname()}_${createHash("sha256").update(resolve(o.dataDir)).digest("hex").slice(0, 12)}${workerSuffix}`;
    const led = await electControllers(controllerDeps, { ...o.leaderElection, identity }, lead);
    cleanups.push(() => led.stop());
    const compactor = startCompaction(storage, { intervalMs: primaryWorker ? o.compactionIntervalMs : 0, retainedRevisions: o.compactionRetainedRevisions, clock, logger });
    cleanups.push(() => compactor.stop());

    const ready = createHandler({
      registry,
      storeFor,
      authenticator: authn.authenticator,
      authorizer: authz.authorizer,
      impersonate: async (headers, user) => {
        const as = await impersonate(headers, user, authz.authorizer);
        removeImpersonationHeaders(headers);
        return as;
      },
      forbiddenMessage,
      clock,
      logger,
      metrics,
      healthChecks: async () => [await storageCheck(() => storage.currentRevision())],
      watchLimits: o.watchLimits,
      watchTally: deps.worker?.watchTally,
      gatherMetrics: deps.worker?.shareMetrics?.(metrics),
      minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
      serverAddress: () => hostPort(clientHost(o), port),
      audit: audit.auditor,
    });
    handler = ready;

    const adminKubeconfigPath = join(o.dataDir, "admin.kubeconfig");
    // The scheduler's identity (system:kube-scheduler), for kube-scheduler --kubeconfig.
    const schedulerKubeconfigPath = join(o.dataDir, "scheduler.kubeconfig");
    if (primaryWorker) {
      const kubeconfig = (userName: string, user: { certPem: string; keyPem: string }) => ({ server: url, caPem: tls.serverCaPem, clusterName: "gardener-apiserver", userName, user });
      await writeKubeconfig(adminKubeconfigPath, kubeconfig("admin", tls.pki.admin));
      await writeKubeconfig(schedulerKubeconfigPath, kubeconfig("kube-scheduler", tls.pki.scheduler));
    }

    let stopping: Promise<void> | undefined;
    return {
      url,
      port,
      caPem: tls.serverCaPem,
      adminKubeconfigPath,
      schedulerKubeconfigPath,
      registry,
      client,
      stop: () => (stopping ??= stopServer(listener, ready, runCleanups)),
    };
  } catch (err) {
    await listener.close();
    await runCleanups();
    throw err;
  }
}

async function stopServer(listener: Listener, handler: ApiHandler, runCleanups: () => Promise<void>): Promise<void> {
  // /readyz fails and watches end with a normal end of stream, so informers re-watch (elsewhere).
  handler.shutdown();
  await listener.close();
  await runCleanups();
}

async function storageCheck(probe: () => Promise<unknown>): Promise<{ name: string; ok: boolean; message?: string }> {
  try {
    await Promise.race([probe(), new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), 2000).unref())]);
    return { name: "storage", ok: true };
  } catch (err) {
    return { name: "storage", ok: false, message: (err as Error).message };
  }
}
