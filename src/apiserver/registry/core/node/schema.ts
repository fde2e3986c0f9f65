// The core/v1 Node schema, with the strategic-merge-patch keys Kubernetes declares
// (status.addresses and status.conditions merged by type).
import { anyValue, arr, bool, int32, int64, mergeList, obj, quantityMap, str, stringArray, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";

const taint = obj(
  {
    key: str("Required. The taint key to be applied to a node."),
    value: str("The taint value corresponding to the taint key."),
    effect: { ...str("Required. The effect of the taint on pods that do not tolerate the taint."), enum: ["NoSchedule", "PreferNoSchedule", "NoExecute"] },
    timeAdded: time("TimeAdded represents the time at which the taint was added."),
  },
  "The node this Taint is attached to has the \"effect\" on any pod that does not tolerate the Taint.",
  ["key", "effect"],
);

const nodeSpec = obj(
  {
    podCIDR: str("PodCIDR represents the pod IP range assigned to the node."),
    podCIDRs: stringArray("podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-list-type": "set",
    }),
    providerID: str("ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>"),
    unschedulable: bool("Unschedulable controls node schedulability of new pods. By default, node is schedulable."),
    taints: arr(taint, "If specified, the node's taints.", { "x-kubernetes-list-type": "atomic" }),
    externalID: str("Deprecated. Not all kubelets will set this field."),
    configSource: { ...anyValue("Deprecated: Previously used to specify the source of the node's configuration for the DynamicKubeletConfig feature."), type: "object" },
  },
  "NodeSpec describes the attributes that a node is created with.",
);

const nodeCondition = obj(
  {
    type: str("Type of node condition."),
    status: str("Status of the condition, one of True, False, Unknown."),
    lastHeartbeatTime: time("Last time we got an update on a given condition."),
    lastTransitionTime: time("Last time the condition transit from one status to another."),
    reason: str("(brief) reason for the condition's last transition."),
    message: str("Human readable message indicating details about last transition."),
  },
  "NodeCondition contains condition information for a node.",
  ["type", "status"],
);

const nodeAddress = obj(
  {
    type: str("Node address type, one of Hostname, ExternalIP or InternalIP."),
    address: str("The node address."),
  },
  "NodeAddress contains information for the node's address.",
  ["type", "address"],
);

const nodeSystemInfo = obj(
  {
    machineID: str("MachineID reported by the node."),
    systemUUID: str("SystemUUID reported by the node."),
    bootID: str("Boot ID reported by the node."),
    kernelVersion: str("Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
    osImage: str("OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
    containerRuntimeVersion: str("ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
    kubeletVersion: str("Kubelet Version reported by the node."),
    kubeProxyVersion: str("Deprecated: KubeProxy Version reported by the node."),
    operatingSystem: str("The Operating System reported by the node"),
    architecture: str("The Architecture reported by the node"),
    swap: { ...anyValue("Swap Info reported by the node."), type: "object" },
  },
  "NodeSystemInfo is a set of ids/uuids to uniquely identify the node.",
);

const nodeStatus = obj(
  {
    capacity: quantityMap("Capacity represents the total resources of a node."),
    allocatable: quantityMap("Allocatable represents the resources of a node that are available for scheduling. Defaults to Capacity."),
    phase: str("NodePhase is the recently observed lifecycle phase of the node."),
    conditions: mergeList(nodeCondition, "type", "Conditions is an array of current observed node conditions."),
    addresses: mergeList(nodeAddress, "type", "List of addresses reachable to the node. Queried from cloud provider, if available."),
    daemonEndpoints: obj(
      { kubeletEndpoint: obj({ Port: int32("Port number of the given endpoint.") }, "Endpoint on which Kubelet is listening.", ["Port"]) },
      "NodeDaemonEndpoints lists ports opened by daemons running on the Node.",
    ),
    nodeInfo: nodeSystemInfo,
    images: arr(
      obj({ names: stringArray("Names by which this image is known."), sizeBytes: int64("The size of the image in bytes.") }, "Describe a container image"),
      "List of container images on this node",
      { "x-kubernetes-list-type": "atomic" },
    ),
    volumesInUse: stringArray("List of attachable volumes in use (mounted) by the node."),
    volumesAttached: arr(
      obj({ name: str("Name of the attached volume"), devicePath: str("DevicePath represents the device path where the volume should be available") }, "AttachedVolume describes a volume attached to a node", ["name", "devicePath"]),
      "List of volumes that are attached to the node.",
    ),
    config: { ...anyValue("Status of the config assigned to the node via the dynamic Kubelet config feature."), type: "object" },
    runtimeHandlers: arr({ ...anyValue("NodeRuntimeHandler is a set of runtime handler information."), type: "object" }, "The available runtime handlers."),
    features: { ...anyValue("Features describes the set of features implemented by the CRI implementation."), type: "object" },
  },
  "NodeStatus is information about the current status of a node.",
);

export const nodeSchema = kindSchema({
  description: "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).",
  properties: { spec: nodeSpec, status: nodeStatus },
});
