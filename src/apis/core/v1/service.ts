// core/v1 Service and Endpoints, discovery.k8s.io/v1 EndpointSlice (k8s.io/api core/v1 and
// discovery/v1 types.go): the fields this project's code reads.
import type { KubeObject } from "../../meta/v1/types.ts";
import type { ObjectReference } from "./types.ts";

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";

export interface ServicePort {
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
  appProtocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: ServiceType;
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  externalName?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  internalTrafficPolicy?: string;
  externalTrafficPolicy?: string;
  publishNotReadyAddresses?: boolean;
  [field: string]: unknown;
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

export interface EndpointSliceEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointSlice extends KubeObject {
  addressType: "IPv4" | "IPv6" | "FQDN";
  endpoints: EndpointSliceEndpoint[] | null;
  ports?: EndpointPort[] | null;
}

/** Label on EndpointSlices naming their Service, and the one naming who manages them. */
export const LABEL_SERVICE_NAME = "kubernetes.io/service-name";
export const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
export const ENDPOINTSLICE_CONTROLLER = "endpointslice-controller.k8s.io";
