// EndpointsController: for every Service with a selector, the Endpoints of the same name and one
// EndpointSlice (label kubernetes.io/service-name, owned by the Service) list the matching pods that
// have an IP and are not being deleted: ready pods as addresses, the others as notReadyAddresses
// (or ready ones too with publishNotReadyAddresses). Named target ports are resolved per pod. At most
// MAX_ENDPOINTS pods are listed per Service. Services without a selector are left alone.
import type { Pod } from "../../apis/core/v1/pod.ts";
import {
  ENDPOINTSLICE_CONTROLLER,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  type EndpointAddress,
  type EndpointPort,
  type EndpointSlice,
  type EndpointSubset,
  type Endpoints,
  type Service,
} from "../../apis/core/v1/service.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { isAlreadyExists, isNotFound } from "../../apimachinery/errors.ts";
import { semanticEqual } from "../../api/equality.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { ENDPOINTS, PODS, SERVICES } from "../registry/core/resources.ts";

const SLICES = { group: "discovery.k8s.io", resource: "endpointslices" };
export const MAX_ENDPOINTS = 1000;

interface Member {
  address: EndpointAddress;
  ready: boolean;
  ports: EndpointPort[];
}

function podReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/** The pod's ports for the service's ports; a named target port the pod lacks drops that port. */
function resolvePorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const p of svc.spec?.ports ?? []) {
    const target = p.targetPort ?? p.port;
    let port: number | undefined = typeof target === "number" ? target : undefined;
    if (typeof target === "string") {
      for (const c of pod.spec?.containers ?? []) {
        const found = (c.ports ?? []).find((cp) => cp.name === target && (cp.protocol ?? "TCP") === (p.protocol ?? "TCP"));
        if (found) port = found.containerPort;
      }
    }
    if (port === undefined) continue;
    const ep: EndpointPort = { port, protocol: p.protocol ?? "TCP" };
    if (p.name) ep.name = p.name;
    if (p.appProtocol) ep.appProtocol = p.appProtocol;
    out.push(ep);
  }
  return out;
}

function members(svc: Service, pods: Pod[]): Member[] {
  const out: Member[] = [];
  for (const pod of pods) {
    const ip = pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP;
    if (!ip || pod.metadata.deletionTimestamp) continue;
    const address: EndpointAddress = { ip, targetRef: { kind: "Pod", namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid } };
    if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
    out.push({ address, ready: podReady(pod) || svc.spec?.publishNotReadyAddresses === true, ports: resolvePorts(svc, pod) });
    if (out.length >= MAX_ENDPOINTS) break;
  }
  return out.sort((a, b) => (a.address.ip < b.address.ip ? -1 : a.address.ip > b.address.ip ? 1 : 0));
}

/** Subsets grouped by identical port lists, as the endpoints controller repacks them. */
export function subsetsOf(ms: Member[]): EndpointSubset[] {
  const groups = new Map<string, EndpointSubset>();
  for (const m of ms) {
    const key = JSON.stringify(m.ports);
    let s = groups.get(key);
    if (!s) groups.set(key, (s = { ports: m.ports }));
    if (m.ready) (s.addresses ??= []).push(m.address);
    else (s.notReadyAddresses ??= []).push(m.address);
  }
  return [...groups.values()].filter((s) => s.addresses?.length || s.notReadyAddresses?.length);
}

export type EndpointsControllerOptions = KeyControllerOptions;

export class EndpointsController extends KeyController<EndpointsControllerOptions> {
  constructor(opts: EndpointsControllerOptions) {
    super(opts);
    const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
    this.watch(SERVICES, (e) => this.queue.add(key(e.object)));
    this.watch(PODS, (e) => void this.podChanged(e.object));
  }

  private async podChanged(pod: KubeObject): Promise<void> {
    try {
      const services = (await this.opts.client.list(SERVICES, pod.metadata.namespace)).items as Service[];
      const labels = pod.metadata.labels ?? {};
      for (const s of services) {
        const sel = s.spec?.selector;
        if (sel && Object.keys(sel).length && Object.entries(sel).every(([k, v]) => labels[k] === v)) this.queue.add(`${s.metadata.namespace}/${s.metadata.name}`);
      }
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  async sync(key: string): Promise<SyncResult> {
    const [namespace = "", name = ""] = key.split("/");
    const client = this.opts.client;
    const svc = (await client.get(SERVICES, namespace, name)) as Service | undefined;
    const selector = svc?.spec?.selector;
    if (!svc || svc.metadata.deletionTimestamp) {
      await client.delete(ENDPOINTS, namespace, name);
      for (const s of await this.ownSlices(namespace, name)) await client.delete(SLICES, namespace, s.metadata.name!);
      return;
    }
    if (!selector || Object.keys(selector).length === 0) return;
    const labelSelector = Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(",");
    const pods = (await client.list(PODS, namespace, { labelSelector })).items as Pod[];
    const ms = members(svc, pods);
    await this.writeEndpoints(svc, subsetsOf(ms));
    await this.writeSlice(svc, ms);
  }

  private async writeEndpoints(svc: Service, subsets: EndpointSubset[]): Promise<void> {
    const { namespace, name } = svc.metadata;
    const labels = { ...svc.metadata.labels };
    if (svc.spec?.clusterIP === "None") labels["service.kubernetes.io/headless"] = "";
    const current = (await this.opts.client.get(ENDPOINTS, namespace, name!)) as Endpoints | undefined;
    const desired: Endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, labels }, subsets };
    if (!current) return this.create(ENDPOINTS, desired);
    if (semanticEqual(current.subsets, subsets) && semanticEqual(current.metadata.labels, labels)) return;
    await this.opts.client.update(ENDPOINTS, { ...current, metadata: { ...current.metadata, labels }, subsets });
  }

  private async ownSlices(namespace: string, name: string): Promise<EndpointSlice[]> {
    const labelSelector = `${LABEL_SERVICE_NAME}=${name},${LABEL_MANAGED_BY}=${ENDPOINTSLICE_CONTROLLER}`;
    return (await this.opts.client.list(SLICES, namespace, { labelSelector })).items as EndpointSlice[];
  }

  private async writeSlice(svc: Service, ms: Member[]): Promise<void> {
    const { namespace, name, uid } = svc.metadata;
    const slices = await this.ownSlices(namespace!, name!);
    const labels = { ...svc.metadata.labels, [LABEL_SERVICE_NAME]: name!, [LABEL_MANAGED_BY]: ENDPOINTSLICE_CONTROLLER };
    const endpoints = ms.map((m) => ({
      addresses: [m.address.ip],
      conditions: { ready: m.ready, serving: m.ready, terminating: false },
      ...(m.address.nodeName ? { nodeName: m.address.nodeName } : {}),
      targetRef: m.address.targetRef,
    }));
    const ports = ms[0]?.ports ?? (svc.spec?.ports ?? []).filter((p) => typeof (p.targetPort ?? p.port) === "number").map((p) => ({ ...(p.name ? { name: p.name } : {}), port: Number(p.targetPort ?? p.port), protocol: p.protocol ?? "TCP" }));
    const [current, ...extra] = slices;
    for (const s of extra) await this.opts.client.delete(SLICES, namespace, s.metadata.name!);
    if (!current) {
      const ownerReferences = [{ apiVersion: "v1", kind: "Service", name: name!, uid: uid!, controller: true, blockOwnerDeletion: true }];
      return this.create(SLICES, { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { generateName: `${name}-`, namespace, labels, ownerReferences }, addressType: "IPv4", endpoints, ports });
    }
    if (semanticEqual(current.endpoints, endpoints) && semanticEqual(current.ports, ports) && semanticEqual(current.metadata.labels, labels)) return;
    await this.opts.client.update(SLICES, { ...current, metadata: { ...current.metadata, labels }, endpoints, ports } as KubeObject);
  }

  private async create(gr: { group: string; resource: string }, obj: KubeObject): Promise<void> {
    try {
      await this.opts.client.create(gr, obj);
    } catch (err) {
      if (!isAlreadyExists(err) && !isNotFound(err)) throw err;
    }
  }
}
