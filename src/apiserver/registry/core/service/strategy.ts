// Service strategy (pkg/registry/core/service/strategy.go, v1 defaults): targetPort defaults to
// port, clusterIP and clusterIPs are kept in step, an update without them keeps the allocated ones,
// single-stack IPv4 families. The cluster IP itself is allocated by the ServiceIPAllocation admission.
import type { Service } from "../../../../apis/core/v1/service.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { validateService, validateServiceUpdate } from "./validation.ts";

export function defaultService(svc: Service): void {
  const spec = svc.spec;
  if (!spec || !asRecord(spec)) return;
  for (const p of Array.isArray(spec.ports) ? spec.ports : []) if (asRecord(p) && p.targetPort === undefined) p.targetPort = p.port;
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  if (!spec.clusterIP && spec.clusterIPs?.length) spec.clusterIP = spec.clusterIPs[0];
  if (spec.type !== "ExternalName") {
    spec.internalTrafficPolicy ??= "Cluster";
    spec.ipFamilyPolicy ??= "SingleStack";
    if (!spec.ipFamilies?.length) spec.ipFamilies = [spec.clusterIP?.includes(":") ? "IPv6" : "IPv4"];
  }
  if ((spec.type === "NodePort" || spec.type === "LoadBalancer") && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = "Cluster";
}

export const serviceStrategy: Strategy<Service> = {
  prepareForCreate(_ctx, svc) {
    defaultService(svc);
    svc.status = { loadBalancer: {} };
  },
  prepareForUpdate(_ctx, svc, old) {
    const spec = svc.spec;
    if (spec && old.spec?.clusterIP && !spec.clusterIP && !spec.clusterIPs?.length && spec.type !== "ExternalName") {
      spec.clusterIP = old.spec.clusterIP;
      spec.clusterIPs = old.spec.clusterIPs;
    }
    if (spec && old.spec) {
      spec.ipFamilies ??= old.spec.ipFamilies;
      spec.ipFamilyPolicy ??= old.spec.ipFamilyPolicy;
      for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
        const before = old.spec.ports?.find((o) => o.port === p.port && (o.protocol ?? "TCP") === (p.protocol ?? "TCP"));
        if (p.nodePort === undefined && before?.nodePort !== undefined && spec.type !== "ClusterIP") p.nodePort = before.nodePort;
      }
    }
    defaultService(svc);
  },
  validate: (_ctx, svc) => validateService(svc),
  validateUpdate: (_ctx, svc, old) => validateServiceUpdate(svc, old),
  validateStatusUpdate: () => [],
};
