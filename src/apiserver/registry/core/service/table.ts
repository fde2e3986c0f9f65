// kubectl get services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and with -o wide SELECTOR
// (pkg/printers/internalversion printService).
import type { Service } from "../../../../apis/core/v1/service.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column } from "../printers.ts";

function externalIPs(svc: Service): string {
  const spec = svc.spec ?? {};
  const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || "").filter(Boolean);
  switch (spec.type) {
    case "ExternalName":
      return spec.externalName ?? "";
    case "LoadBalancer": {
      const all = [...ingress, ...(spec.externalIPs ?? [])];
      return all.length ? all.join(",") : "<pending>";
    }
    default:
      return spec.externalIPs?.length ? spec.externalIPs.join(",") : "<none>";
  }
}

export function servicePorts(svc: Service): string {
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0) return "<none>";
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${p.protocol ?? "TCP"}`).join(",");
}

export function selectorText(selector: Record<string, string> | undefined): string {
  const entries = Object.entries(selector ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(",") : "<none>";
}

export const serviceTable: TableConvertor = {
  columns: [
    column("Type", "string", "type determines how the Service is exposed."),
    column("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
    column("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
    column("Port(s)", "string", "The list of ports that are exposed by this service."),
    ageColumn(),
    column("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", { priority: 1 }),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const svc = obj as Service;
    const spec = svc.spec ?? {};
    return [spec.type ?? "ClusterIP", spec.type === "ExternalName" ? "<none>" : spec.clusterIP || "<none>", externalIPs(svc), servicePorts(svc), ageCell(svc, now), selectorText(spec.selector)];
  },
};
