// The server's own controllers. Every replica keeps the bootstrap RBAC policy and the default
// namespaces, and serves CRDs (startReplicaControllers). Those kube-controller-manager would run,
// only the replica holding the controllers Lease runs (startLedControllers, electControllers;
// docs/high-availability.md): namespace deletion, every namespace's default ServiceAccount and
// kube-root-ca.crt, Endpoints and EndpointSlices of Services, the kubernetes Service, node
// lifecycle (conditions and taints of silent nodes), the garbage collector, ClusterRole aggregation.
import type { Logger } from "pino";
import type { Clock } from "../../utils/clock.ts";
import { ClusterRoleAggregationController } from "../authorization/aggregation.ts";
import { ensureBootstrapPolicy } from "../authorization/bootstrap.ts";
import { ensureGardenPolicy } from "../authorization/gardenroles.ts";
import { CRDController } from "../controllers/crd.ts";
import { GarbageCollector } from "../controllers/garbagecollector/garbagecollector.ts";
import { EndpointsController } from "../controllers/endpoints.ts";
import { CONTROLLERS_LEASE, ControllerElection, type ElectionTiming } from "../controllers/leader-election.ts";
import { KubernetesServiceController } from "../controllers/kubernetes-service.ts";
import { NamespaceDefaultsController } from "../controllers/namespace-defaults.ts";
import { ensureDefaultNamespaces, NamespaceDeletionController } from "../controllers/namespace-deletion.ts";
import { NodeLifecycleController } from "../controllers/node-lifecycle.ts";
import { definitionsFromCRD } from "../registry/apiextensions/customresource.ts";
import type { InternalClient } from "../registry/client.ts";
import type { ResourceRegistry } from "../registry/registry.ts";

export interface ControllerDeps {
  client: InternalClient;
  registry: ResourceRegistry;
  clock: Clock;
  logger: Logger;
  /** Also keep Gardener's garden ClusterRoles (--enable-gardener-apis). */
  gardenPolicy?: boolean;
  /** The cluster CA every namespace's kube-root-ca.crt publishes. */
  caPem: string;
  /** The `kubernetes` Service: its cluster IP and where this server is reached. */
  kubernetesService?: { clusterIP: string; address: string; port: number };
  /** Node lifecycle: how long a node's kubelet may stay silent (default 40 s). */
  nodeMonitorGracePeriodMs?: number;
}

export interface RunningControllers {
  stop(): void;
}

/** Bootstrap policy and the CRD controller, in every replica; resolves once the CRDs are served. */
export async function startReplicaControllers(d: ControllerDeps): Promise<RunningControllers> {
  const created = await ensureBootstrapPolicy(d.client);
  if (created.clusterRoles.length || created.clusterRoleBindings.length) d.logger.debug(created, "created bootstrap RBAC policy");
  if (d.gardenPolicy) d.logger.debug({ clusterRoles: await ensureGardenPolicy(d.client) }, "ensured garden RBAC policy");
  // As kube-apiserver's system namespaces controller: kube-system holds the controllers Lease.
  await ensureDefaultNamespaces(d.client);
  const crds = new CRDController({
    client: d.client,
    registry: d.registry,
    clock: d.clock,
    definitionsFromCRD,
    onError: (err, crd) => d.logger.warn({ err, crd }, "CRD sync failed"),
  });
  await crds.start();
  return crds;
}

/** The leader's controllers, in dependency order; resolves once each has seen its initial state. */
export async function startLedControllers(d: ControllerDeps): Promise<RunningControllers> {
  const started: { stop(): void }[] = [];
  const stopAll = () => {
    for (const c of started.reverse()) c.stop();
  };
  try {
    const namespaces = new NamespaceDeletionController({
      client: d.client,
      registry: d.registry,
      clock: d.clock,
      onError: (err, namespace) => d.logger.warn({ err, namespace }, "namespace deletion failed"),
    });
    started.push(namespaces);
    await namespaces.start();

    const defaults = new NamespaceDefaultsController({
      client: d.client,
      clock: d.clock,
      caPem: d.caPem,
      onError: (err, namespace) => d.logger.warn({ err, namespace }, "namespace defaults failed"),
    });
    started.push(defaults);
    await defaults.start();

    const endpoints = new EndpointsController({ client: d.client, clock: d.clock, onError: (err, key) => d.logger.warn({ err, key }, "endpoints sync failed") });
    started.push(endpoints);
    await endpoints.start();
    if (d.kubernetesService) {
      const onError = (err: unknown) => d.logger.warn({ err }, "kubernetes service reconcile failed");
      const kubernetes = new KubernetesServiceController({ client: d.client, clock: d.clock, ...d.kubernetesService, onError });
      started.push(kubernetes);
      await kubernetes.start();
    }

    const nodes = new NodeLifecycleController({
      client: d.client,
      clock: d.clock,
      gracePeriodMs: d.nodeMonitorGracePeriodMs,
      onError: (err, node) => d.logger.warn({ err, node }, "node lifecycle sync failed"),
    });
    started.push(nodes);
    await nodes.start();

    const gc = new GarbageCollector({
      client: d.client,
      registry: d.registry,
      clock: d.clock,
      onError: (err, what) => d.logger.warn({ err, what }, "garbage collection failed"),
    });
    started.push(gc);
    await gc.start();

    const aggregation = new ClusterRoleAggregationController(d.client, {
      clock: d.clock,
      onError: (err) => d.logger.warn({ err }, "ClusterRole aggregation failed"),
    });
    started.push(aggregation);
    await aggregation.start();
  } catch (err) {
    stopAll();
    throw err;
  }
  return { stop: stopAll };
}

export interface LeaderElectionSettings extends ElectionTiming {
  /** false: this replica runs the led controllers without a Lease (one replica only). */
  enabled: boolean;
  identity: string;
}

/**
 * Runs `lead` (the led controllers) while this replica holds the controllers Lease, or always
 * without leader election. A lone replica, or one restarted with the same identity, leads before
 * this resolves; otherwise it campaigns in the background.
 */
export async function electControllers(
  d: Pick<ControllerDeps, "client" | "clock" | "logger">,
  settings: LeaderElectionSettings,
  lead: () => Promise<RunningControllers>,
): Promise<{ stop(): Promise<void> }> {
  if (!settings.enabled) {
    const led = await lead();
    return { stop: async () => led.stop() };
  }
  const log = d.logger.child({ lease: `${CONTROLLERS_LEASE.namespace}/${CONTROLLERS_LEASE.name}`, identity: settings.identity });
  const election = new ControllerElection({
    ...settings,
    client: d.client,
    clock: d.clock,
    lead,
    onEvent: (what, err) => (err ? log.debug({ err }, what) : log.info(what)),
  });
  await election.start();
  return { stop: () => election.stop() };
}
