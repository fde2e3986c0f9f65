// The core/v1 Pod schema: PodSpec with the volume sources users meet, PodStatus as the kubelet
// writes it, with Kubernetes' defaults (restartPolicy Always, terminationGracePeriodSeconds 30,
// dnsPolicy ClusterFirst, schedulerName default-scheduler, volume modes 0644) and merge keys.
import { arr, bool, int32, int64, mergeList, obj, str, stringArray, stringMap, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { containerSchema, freeObject, objectFieldSelector, resourceFieldSelector, seccompProfile, seLinuxOptions, windowsOptions } from "./schema-container.ts";

const DEFAULT_MODE = 420; // 0644

const keyToPath = obj({ key: str(), path: str(), mode: int32() }, "Maps a string key to a path within a volume.", ["key", "path"]);
const items = arr(keyToPath, undefined, { "x-kubernetes-list-type": "atomic" });
const downwardFile = obj({ path: str(), fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, mode: int32() }, undefined, ["path"]);
const downwardItems = arr(downwardFile, undefined, { "x-kubernetes-list-type": "atomic" });

const projection = obj({
  secret: obj({ name: str(undefined, { default: "" }), items, optional: bool() }),
  configMap: obj({ name: str(undefined, { default: "" }), items, optional: bool() }),
  downwardAPI: obj({ items: downwardItems }),
  serviceAccountToken: obj({ audience: str(), expirationSeconds: int64(undefined, { default: 3600 }), path: str() }, undefined, ["path"]),
  clusterTrustBundle: freeObject(),
});

const volume = obj(
  {
    name: str("Volume's name. Must be a DNS_LABEL and unique within the pod."),
    emptyDir: obj({ medium: str(), sizeLimit: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } }),
    hostPath: obj({ path: str(), type: str(undefined, { default: "" }) }, undefined, ["path"]),
    secret: obj({ secretName: str(), items, defaultMode: int32(undefined, { default: DEFAULT_MODE }), optional: bool() }),
    configMap: obj({ name: str(undefined, { default: "" }), items, defaultMode: int32(undefined, { default: DEFAULT_MODE }), optional: bool() }),
    projected: obj({ sources: arr(projection, undefined, { "x-kubernetes-list-type": "atomic" }), defaultMode: int32(undefined, { default: DEFAULT_MODE }) }),
    downwardAPI: obj({ items: downwardItems, defaultMode: int32(undefined, { default: DEFAULT_MODE }) }),
    persistentVolumeClaim: obj({ claimName: str(), readOnly: bool() }, undefined, ["claimName"]),
    ephemeral: freeObject(),
    csi: freeObject(),
    nfs: freeObject(),
    image: freeObject(),
  },
  "Volume represents a named volume in a pod that may be accessed by any container in the pod.",
  ["name"],
);

const toleration = obj({ key: str(), operator: str(), value: str(), effect: str(), tolerationSeconds: int64() });

const podSecurityContext = obj({
  seLinuxOptions,
  windowsOptions,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  supplementalGroups: arr({ type: "integer", format: "int64" }, undefined, { "x-kubernetes-list-type": "atomic" }),
  supplementalGroupsPolicy: str(),
  fsGroup: int64(),
  sysctls: arr(obj({ name: str(), value: str() }, undefined, ["name", "value"]), undefined, { "x-kubernetes-list-type": "atomic" }),
  fsGroupChangePolicy: str(),
  seccompProfile,
  appArmorProfile: seccompProfile,
  seLinuxChangePolicy: str(),
});

const podSpec = obj(
  {
    volumes: arr(volume, "List of volumes that can be mounted by containers belonging to the pod.", {
      "x-kubernetes-patch-strategy": "merge,retainKeys",
      "x-kubernetes-patch-merge-key": "name",
    }),
    initContainers: mergeList(containerSchema, "name", "List of initialization containers belonging to the pod."),
    containers: mergeList(containerSchema, "name", "List of containers belonging to the pod. There must be at least one container in a Pod."),
    ephemeralContainers: mergeList(containerSchema, "name", "List of ephemeral containers run in this pod."),
    restartPolicy: { ...str("Restart policy for all containers within the pod. One of Always, OnFailure, Never.", { default: "Always" }), enum: ["Always", "OnFailure", "Never"] },
    terminationGracePeriodSeconds: int64("Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.", { default: 30 }),
    activeDeadlineSeconds: int64(),
    dnsPolicy: { ...str(undefined, { default: "ClusterFirst" }), enum: ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"] },
    nodeSelector: stringMap("NodeSelector is a selector which must be true for the pod to fit on a node."),
    serviceAccountName: str("ServiceAccountName is the name of the ServiceAccount to use to run this pod."),
    serviceAccount: str("DeprecatedServiceAccount is a deprecated alias for ServiceAccountName."),
    automountServiceAccountToken: bool(),
    nodeName: str("NodeName indicates in which node this pod is scheduled."),
    hostNetwork: bool(),
    hostPID: bool(),
    hostIPC: bool(),
    shareProcessNamespace: bool(),
    securityContext: { ...podSecurityContext, default: {} },
    imagePullSecrets: mergeList(obj({ name: str(undefined, { default: "" }) }), "name"),
    hostname: str(),
    subdomain: str(),
    affinity: freeObject("If specified, the pod's scheduling constraints"),
    schedulerName: str(undefined, { default: "default-scheduler" }),
    tolerations: arr(toleration, "If specified, the pod's tolerations.", { "x-kubernetes-list-type": "atomic" }),
    hostAliases: mergeList(obj({ ip: str(), hostnames: stringArray() }, undefined, ["ip"]), "ip"),
    priorityClassName: str(),
    priority: int32(),
    dnsConfig: freeObject(),
    readinessGates: arr(obj({ conditionType: str() }, undefined, ["conditionType"]), undefined, { "x-kubernetes-list-type": "atomic" }),
    runtimeClassName: str(),
    enableServiceLinks: bool(undefined, { default: true }),
    preemptionPolicy: str(),
    overhead: freeObject(),
    topologySpreadConstraints: arr(freeObject(), undefined, { "x-kubernetes-list-type": "atomic" }),
    setHostnameAsFQDN: bool(),
    os: obj({ name: str() }, undefined, ["name"]),
    hostUsers: bool(),
    schedulingGates: mergeList(obj({ name: str() }, undefined, ["name"]), "name"),
    resourceClaims: arr(freeObject(), undefined, { "x-kubernetes-list-type": "atomic" }),
    resources: freeObject(),
  },
  "PodSpec is a description of a pod.",
  ["containers"],
);

const containerState = obj({
  waiting: obj({ reason: str(), message: str() }),
  running: obj({ startedAt: time() }),
  terminated: obj(
    { exitCode: int32(), signal: int32(), reason: str(), message: str(), startedAt: time(), finishedAt: time(), containerID: str() },
    undefined,
    ["exitCode"],
  ),
});

const containerStatus = obj(
  {
    name: str(),
    state: containerState,
    lastState: containerState,
    ready: bool(),
    restartCount: int32(),
    image: str(),
    imageID: str(),
    containerID: str(),
    started: bool(),
    allocatedResources: freeObject(),
    resources: freeObject(),
    volumeMounts: arr(freeObject()),
    user: freeObject(),
    allocatedResourcesStatus: arr(freeObject()),
    stopSignal: str(),
  },
  "ContainerStatus contains details for the current status of this container.",
  ["name", "ready", "restartCount", "image", "imageID"],
);

const podCondition = obj(
  {
    type: str(),
    observedGeneration: int64(),
    status: str(),
    lastProbeTime: { ...time(), nullable: true },
    lastTransitionTime: { ...time(), nullable: true },
    reason: str(),
    message: str(),
  },
  "PodCondition contains details for the current condition of this pod.",
  ["type", "status"],
);

const podIP = obj({ ip: str() }, undefined, ["ip"]);

const podStatus = obj(
  {
    observedGeneration: int64(),
    phase: str("The phase of a Pod: Pending, Running, Succeeded, Failed or Unknown."),
    conditions: mergeList(podCondition, "type", "Current service state of pod."),
    message: str(),
    reason: str(),
    nominatedNodeName: str(),
    hostIP: str(),
    hostIPs: mergeList(podIP, "ip"),
    podIP: str(),
    podIPs: mergeList(podIP, "ip"),
    startTime: time(),
    initContainerStatuses: arr(containerStatus, undefined, { "x-kubernetes-list-type": "atomic" }),
    containerStatuses: arr(containerStatus, undefined, { "x-kubernetes-list-type": "atomic" }),
    qosClass: str(),
    ephemeralContainerStatuses: arr(containerStatus, undefined, { "x-kubernetes-list-type": "atomic" }),
    resize: str(),
    resourceClaimStatuses: arr(freeObject()),
  },
  "PodStatus represents information about the status of a pod.",
);

export const podSchema = kindSchema({
  description: "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.",
  properties: { spec: podSpec, status: podStatus },
});
