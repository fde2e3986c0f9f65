// Where a webhook is called (docs/admission-webhooks.md#client-config): a `url` as written, or a
// Service reference resolved to the first ready EndpointSlice address on the port the Service's
// `port` targets, with the TLS name `<name>.<namespace>.svc`. With an egress selector (a shoot's VPN)
// that address is dialled through the egress proxy (the plugin's `dial`).
import type { WebhookClientConfig } from "../../../apis/admissionregistration/v1/types.ts";
import type { EndpointSlice, Service } from "../../../apis/core/v1/service.ts";
import { LABEL_SERVICE_NAME } from "../../../apis/core/v1/service.ts";
import type { InternalClient } from "../../registry/client.ts";
import { SERVICES } from "../../registry/core/resources.ts";

export interface WebhookTarget {
  /** The URL the request is posted to (for messages). */
  url: string;
  host: string;
  port: number;
  path: string;
  /** The name the server certificate must carry. */
  servername: string;
}

export type ServiceResolver = (client: InternalClient, namespace: string, name: string, port: number) => Promise<{ host: string; port: number }>;

export async function resolveTarget(cc: WebhookClientConfig, client: InternalClient, resolveService: ServiceResolver = resolveServiceEndpoint): Promise<WebhookTarget> {
  if (cc.url) {
    const u = new URL(cc.url);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    return { url: cc.url, host, port: Number(u.port || 443), path: `${u.pathname}${u.search}`, servername: host };
  }
  const s = cc.service!;
  const port = s.port ?? 443;
  const path = s.path || "/";
  const url = `https://${s.name}.${s.namespace}.svc:${port}${path}`;
  const ep = await resolveService(client, s.namespace, s.name, port);
  return { url, host: ep.host, port: ep.port, path, servername: `${s.name}.${s.namespace}.svc` };
}

/** The first ready address of the Service's EndpointSlices, on the target port of its `port`. */
export async function resolveServiceEndpoint(client: InternalClient, namespace: string, name: string, port: number): Promise<{ host: string; port: number }> {
  const svc = (await client.get(SERVICES, namespace, name)) as Service | undefined;
  if (!svc) throw new Error(`service "${namespace}/${name}" not found`);
  const sp = (svc.spec?.ports ?? []).find((p) => p.port === port);
  if (!sp) throw new Error(`service "${namespace}/${name}" has no port ${port}`);
  const slices = await client.list({ group: "discovery.k8s.io", resource: "endpointslices" }, namespace, { labelSelector: `${LABEL_SERVICE_NAME}=${name}` });
  for (const slice of slices.items as EndpointSlice[]) {
    const target = (slice.ports ?? []).find((p) => (p.name ?? "") === (sp.name ?? ""));
    const targetPort = target?.port ?? (typeof sp.targetPort === "number" ? sp.targetPort : undefined);
    if (!targetPort) continue;
    for (const ep of slice.endpoints ?? []) {
      if (ep.conditions?.ready === false || !ep.addresses?.[0]) continue;
      return { host: ep.addresses[0], port: targetPort };
    }
  }
  throw new Error(`service "${namespace}/${name}" has no ready endpoints`);
}
