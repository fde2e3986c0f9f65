// The server's own controllers: bootstrap RBAC policy, default namespaces and namespace deletion,
// every namespace's default ServiceAccount and kube-root-ca.crt, Endpoints and EndpointSlices of
// Services, the kubernetes Service, node lifecycle (conditions and taints of silent nodes), CRDs
// (serving their resources), the garbage collector, ClusterRole aggregation.
import type { Logger } from "pino";
import type { Clock } from "../../utils/clock.ts";
import { ClusterRoleAggregationController } from "../authorization/aggregation.ts";
import { ensureBootstrapPolicy } from "../authorization/bootstrap.ts";
import { ensureGardenPolicy } from "../authorization/gardenroles.ts";
import { CRDController } from "../controllers/crd.ts";
import { GarbageCollector } from "../controllers/garbagecollector/garbagecollector.ts";
import { EndpointsController } from "../controllers/endpoints.ts";
import { KubernetesServiceController } from "../controllers/kubernetes-service.ts";
import { NamespaceDefaultsController } from "../controllers/namespace-defaults.ts";
import { NamespaceDeletionController } from "../controllers/namespace-deletion.ts";
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

/** Starts them in dependency order; resolves once each has seen its initial state. */
export async function startControllers(d: ControllerDeps): Promise<RunningControllers> {
  const started: { stop(): void }[] = [];
  const stopAll = () => {
    for (const c of started.reverse()) c.stop();
  };
  try {
    const created = await ensureBootstrapPolicy(d.client);
    if (created.clusterRoles.length || created.clusterRoleBindings.length) d.logger.debug(created, "created bootstrap RBAC policy");
    if (d.gardenPolicy) d.logger.debug({ clusterRoles: await ensureGardenPolicy(d.client) }, "ensured garden RBAC policy");

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

    const crds = new CRDController({
      client: d.client,
      registry: d.registry,
      clock: d.clock,
      definitionsFromCRD,
      onError: (err, crd) => d.logger.warn({ err, crd }, "CRD sync failed"),
    });
    started.push(crds);
    await crds.start();

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
