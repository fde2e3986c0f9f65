// The core/v1 Service schema with Kubernetes' defaults (type ClusterIP, sessionAffinity None,
// port protocol TCP, internalTrafficPolicy Cluster) and merge keys (ports by port).
import { arr, bool, int32, mergeList, obj, str, stringArray, stringMap } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { freeObject, intOrString } from "../pod/schema-container.ts";

const servicePort = obj(
  {
    name: str("The name of this port within the service. This must be a DNS_LABEL."),
    protocol: str('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.', { default: "TCP" }),
    appProtocol: str(),
    port: int32("The port that will be exposed by this service."),
    targetPort: intOrString("Number or name of the port to access on the pods targeted by the service."),
    nodePort: int32(),
  },
  "ServicePort contains information on service's port.",
  ["port"],
);

const serviceSpec = obj(
  {
    ports: arr(servicePort, "The list of ports that are exposed by this service.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "port",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "protocol"],
    }),
    selector: stringMap("Route service traffic to pods with label keys and values matching this selector."),
    clusterIP: str("clusterIP is the IP address of the service and is usually assigned randomly."),
    clusterIPs: stringArray("ClusterIPs is a list of IP addresses assigned to this service.", { "x-kubernetes-list-type": "atomic" }),
    type: { ...str("type determines how the Service is exposed. Defaults to ClusterIP.", { default: "ClusterIP" }), enum: ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"] },
    externalIPs: stringArray(undefined, { "x-kubernetes-list-type": "atomic" }),
    sessionAffinity: { ...str(undefined, { default: "None" }), enum: ["ClientIP", "None"] },
    loadBalancerIP: str(),
    loadBalancerSourceRanges: stringArray(undefined, { "x-kubernetes-list-type": "atomic" }),
    externalName: str(),
    externalTrafficPolicy: str(),
    healthCheckNodePort: int32(),
    publishNotReadyAddresses: bool(),
    sessionAffinityConfig: freeObject(),
    ipFamilies: stringArray(undefined, { "x-kubernetes-list-type": "atomic" }),
    ipFamilyPolicy: str(),
    allocateLoadBalancerNodePorts: bool(),
    loadBalancerClass: str(),
    internalTrafficPolicy: str(),
    trafficDistribution: str(),
  },
  "ServiceSpec describes the attributes that a user creates on a service.",
);

export const serviceSchema = kindSchema({
  description: "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
  properties: {
    spec: serviceSpec,
    status: obj({
      loadBalancer: obj({ ingress: arr(obj({ ip: str(), hostname: str(), ipMode: str(), ports: arr(freeObject()) }), undefined, { "x-kubernetes-list-type": "atomic" }) }),
      conditions: mergeList(freeObject(), "type"),
    }),
  },
});
