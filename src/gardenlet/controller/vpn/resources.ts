// Descriptors of the core kinds the VPN controller writes and reads.
import type { Pod } from "../../../apis/core/v1/pod.ts";
import type { Endpoints, Service } from "../../../apis/core/v1/service.ts";
import { resourceType } from "../../../client/resource.ts";

export const Services = resourceType<Service>({ group: "", version: "v1", kind: "Service", plural: "services", namespaced: true });
export const EndpointsType = resourceType<Endpoints>({ group: "", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true });
export const Pods = resourceType<Pod>({ group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true });
