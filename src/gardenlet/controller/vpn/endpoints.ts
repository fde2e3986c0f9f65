// The vpn-seed-server's headless Services and their Endpoints (docs/reversed-vpn.md#gardenlet), labelled
// `app=vpn-seed-server` in the control-plane namespace. Plain: `vpn-seed-server` (1194, 9443, 15000). HA:
// `vpn-seed-server-0` and `-1` (1194 each, on the first and second address) and `vpn-seed-server` (9443,
// 15000 on the first). The seed CONNECT proxy routes by these Endpoints; without addresses (not known yet,
// or hibernated) the Endpoints are removed, the Services stay. Objects of the other mode are removed.
import type { Endpoints, Service, ServicePort } from "../../../apis/core/v1/service.ts";
import type { Client } from "../../../client/client.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import type { ResourceType } from "../../../client/resource.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import * as n from "./names.ts";
import { EndpointsType, Services } from "./resources.ts";

interface Published {
  name: string;
  ports: ServicePort[];
  /** Index into the addresses. */
  address: number;
}

const OPENVPN: ServicePort = { name: "vpn-seed-server", protocol: "TCP", port: n.PORT_OPENVPN };
const EGRESS: ServicePort = { name: "http-proxy", protocol: "TCP", port: n.PORT_EGRESS };
const METRICS: ServicePort = { name: "metrics", protocol: "TCP", port: n.PORT_METRICS };

export function published(ha: boolean): Published[] {
  if (!ha) return [{ name: n.APP_SEED_SERVER, ports: [OPENVPN, EGRESS, METRICS], address: 0 }];
  return [
    { name: `${n.APP_SEED_SERVER}-0`, ports: [OPENVPN], address: 0 },
    { name: `${n.APP_SEED_SERVER}-1`, ports: [OPENVPN], address: 1 },
    { name: n.APP_SEED_SERVER, ports: [EGRESS, METRICS], address: 0 },
  ];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function put<T extends KubeObject>(client: Client, type: ResourceType<T>, desired: T, body: (o: T) => unknown, signal?: AbortSignal): Promise<boolean> {
  const key = { namespace: desired.metadata.namespace!, name: desired.metadata.name! };
  const existing = await unlessNotFound(client.get(type, key, { signal }));
  if (!existing) {
    await client.create(type, desired, { signal });
    return true;
  }
  if (same(body(existing), body(desired)) && same(existing.metadata.labels, desired.metadata.labels)) return false;
  await client.update(type, { ...existing, ...(desired as object), metadata: { ...existing.metadata, labels: desired.metadata.labels } } as T, { signal });
  return true;
}

async function remove<T extends KubeObject>(client: Client, type: ResourceType<T>, namespace: string, name: string, signal?: AbortSignal): Promise<boolean> {
  return (await unlessNotFound(client.delete(type, { namespace, name }, { signal }))) !== undefined;
}

/** Publishes the Services and, given addresses, the Endpoints; answers what changed. */
export async function ensureEndpoints(seed: Client, namespace: string, ha: boolean, addresses: readonly string[] | undefined, signal?: AbortSignal): Promise<string[]> {
  const labels = { [n.LABEL_APP]: n.APP_SEED_SERVER };
  const want = published(ha);
  const changed: string[] = [];
  for (const p of want) {
    const svc: Service = { metadata: { namespace, name: p.name, labels }, spec: { clusterIP: "None", ports: p.ports } };
    if (await put(seed, Services, svc, (o) => ({ clusterIP: o.spec?.clusterIP, ports: o.spec?.ports }), signal)) changed.push(`service/${p.name}`);
    const ip = addresses?.[p.address];
    if (ip) {
      const ep: Endpoints = { metadata: { namespace, name: p.name, labels }, subsets: [{ addresses: [{ ip }], ports: p.ports.map(({ name, port, protocol }) => ({ name, port, protocol })) }] };
      if (await put(seed, EndpointsType, ep, (o) => o.subsets, signal)) changed.push(`endpoints/${p.name}`);
    } else if (await remove(seed, EndpointsType, namespace, p.name, signal)) changed.push(`-endpoints/${p.name}`);
  }
  for (const stale of published(!ha).filter((p) => !want.some((w) => w.name === p.name))) {
    if (await remove(seed, EndpointsType, namespace, stale.name, signal)) changed.push(`-endpoints/${stale.name}`);
    if (await remove(seed, Services, namespace, stale.name, signal)) changed.push(`-service/${stale.name}`);
  }
  return changed;
}

