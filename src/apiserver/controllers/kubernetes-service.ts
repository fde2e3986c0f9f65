// The `kubernetes` Service in `default` (kube-apiserver's controlplane reconciler): ClusterIP, the
// first address of the service range, port 443 named https, no selector; its Endpoints and
// EndpointSlice point at this server's address and port. Checked at start and every 10 s, so a
// deleted or changed one comes back.
import { LABEL_SERVICE_NAME, type Service } from "../../apis/core/v1/service.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { isAlreadyExists } from "../../apimachinery/errors.ts";
import { semanticEqual } from "../../api/equality.ts";
import type { Clock, Timer } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { ENDPOINTS, SERVICES } from "../registry/core/resources.ts";

const SLICES = { group: "discovery.k8s.io", resource: "endpointslices" };
const NAME = "kubernetes";
const NAMESPACE = "default";
export const RECONCILE_MS = 10_000;

export interface KubernetesServiceOptions {
  client: InternalClient;
  clock: Clock;
  /** The Service's cluster IP (first address of --service-cluster-ip-range). */
  clusterIP: string;
  /** Where this server is reached: its advertise (or bind) address and secure port. */
  address: string;
  port: number;
  onError?: (err: unknown) => void;
}

export class KubernetesServiceController {
  private timer: Timer | undefined;
  private stopped = false;

  constructor(private readonly o: KubernetesServiceOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.reconcile();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimer(RECONCILE_MS, () => {
      this.reconcile()
        .catch((err) => this.o.onError?.(err))
        .finally(() => this.schedule());
    });
  }

  async reconcile(): Promise<void> {
    const c = this.o.client;
    const labels = { component: "apiserver", provider: "kubernetes" };
    const ports = [{ name: "https", port: 443, protocol: "TCP", targetPort: this.o.port }];
    const svc = (await c.get(SERVICES, NAMESPACE, NAME)) as Service | undefined;
    if (!svc) {
      const spec = { type: "ClusterIP", clusterIP: this.o.clusterIP, ports, sessionAffinity: "None" };
      await this.create(SERVICES, { apiVersion: "v1", kind: "Service", metadata: { name: NAME, namespace: NAMESPACE, labels }, spec });
    } else if (!semanticEqual(svc.spec?.ports, ports) || svc.spec?.selector) {
      const { selector: _s, ...spec } = svc.spec ?? {};
      await c.update(SERVICES, { ...svc, spec: { ...spec, ports } } as KubeObject);
    }
    const epPorts = [{ name: "https", port: this.o.port, protocol: "TCP" }];
    const subsets = [{ addresses: [{ ip: this.o.address }], ports: epPorts }];
    const ep = await c.get(ENDPOINTS, NAMESPACE, NAME);
    if (!ep) await this.create(ENDPOINTS, { apiVersion: "v1", kind: "Endpoints", metadata: { name: NAME, namespace: NAMESPACE }, subsets });
    else if (!semanticEqual(ep.subsets, subsets)) await c.update(ENDPOINTS, { ...ep, subsets });
    const endpoints = [{ addresses: [this.o.address], conditions: { ready: true } }];
    const slice = await c.get(SLICES, NAMESPACE, NAME);
    const sliceLabels = { [LABEL_SERVICE_NAME]: NAME };
    if (!slice) {
      const body = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: NAME, namespace: NAMESPACE, labels: sliceLabels }, addressType: "IPv4", endpoints, ports: epPorts };
      await this.create(SLICES, body);
    } else if (!semanticEqual(slice.endpoints, endpoints) || !semanticEqual(slice.ports, epPorts)) {
      await c.update(SLICES, { ...slice, endpoints, ports: epPorts });
    }
  }

  private async create(gr: { group: string; resource: string }, obj: KubeObject): Promise<void> {
    try {
      await this.o.client.create(gr, obj);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}
