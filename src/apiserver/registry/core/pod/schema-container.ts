// The core/v1 Container schema (also init and ephemeral containers), with the defaults and
// strategic-merge-patch keys Kubernetes declares (env and volumeMounts by name and mountPath,
// ports by containerPort).
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { anyValue, arr, bool, int32, int64, obj, quantity, quantityMap, str, stringArray } from "../../../schema/builders.ts";

export function intOrString(description?: string): JSONSchemaProps {
  return { ...(description ? { description } : {}), "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] };
}

/** A free-form object kept as is (rarely used structures whose details the server does not check). */
export function freeObject(description?: string): JSONSchemaProps {
  return { ...anyValue(description), type: "object" };
}

export const keySelector = (what: string): JSONSchemaProps =>
  obj(
    {
      name: str(`Name of the referent.`, { default: "" }),
      key: str(`The key of the ${what} to select from.`),
      optional: bool(`Specify whether the ${what} or its key must be defined`),
    },
    `Selects a key of a ${what}.`,
    ["key"],
  );

export const objectFieldSelector = obj(
  {
    apiVersion: str('Version of the schema the FieldPath is written in terms of, defaults to "v1".', { default: "v1" }),
    fieldPath: str("Path of the field to select in the specified API version."),
  },
  "ObjectFieldSelector selects an APIVersioned field of an object.",
  ["fieldPath"],
);

export const resourceFieldSelector = obj(
  { containerName: str(), resource: str(), divisor: quantity() },
  "ResourceFieldSelector represents container resources (cpu, memory) and their output format",
  ["resource"],
);

const envVar = obj(
  {
    name: str("Name of the environment variable."),
    value: str("Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container."),
    valueFrom: obj(
      {
        fieldRef: objectFieldSelector,
        resourceFieldRef: resourceFieldSelector,
        configMapKeyRef: keySelector("ConfigMap"),
        secretKeyRef: keySelector("secret"),
      },
      "Source for the environment variable's value. Cannot be used if value is not empty.",
    ),
  },
  "EnvVar represents an environment variable present in a Container.",
  ["name"],
);

const envFromSource = obj(
  {
    prefix: str(),
    configMapRef: obj({ name: str(undefined, { default: "" }), optional: bool() }),
    secretRef: obj({ name: str(undefined, { default: "" }), optional: bool() }),
  },
  "EnvFromSource represents the source of a set of ConfigMaps or Secrets",
);

const containerPort = obj(
  {
    name: str("If specified, this must be an IANA_SVC_NAME and unique within the pod."),
    hostPort: int32("Number of port to expose on the host."),
    containerPort: int32("Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536."),
    protocol: str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".', { default: "TCP" }),
    hostIP: str("What host IP to bind the external port to."),
  },
  "ContainerPort represents a network port in a single container.",
  ["containerPort"],
);

const volumeMount = obj(
  {
    name: str("This must match the Name of a Volume."),
    readOnly: bool(),
    recursiveReadOnly: str(),
    mountPath: str("Path within the container at which the volume should be mounted. Must not contain ':'."),
    subPath: str(),
    mountPropagation: str(),
    subPathExpr: str(),
  },
  "VolumeMount describes a mounting of a Volume within a container.",
  ["name", "mountPath"],
);

const handler = obj({
  exec: obj({ command: stringArray() }),
  httpGet: obj(
    {
      path: str(),
      port: intOrString(),
      host: str(),
      scheme: str(),
      httpHeaders: arr(obj({ name: str(), value: str() }, undefined, ["name", "value"])),
    },
    undefined,
    ["port"],
  ),
  tcpSocket: obj({ port: intOrString(), host: str() }, undefined, ["port"]),
  grpc: obj({ port: int32(), service: str(undefined, { default: "" }) }, undefined, ["port"]),
  sleep: obj({ seconds: int64() }, undefined, ["seconds"]),
});

const probe = obj({
  ...handler.properties,
  initialDelaySeconds: int32(),
  timeoutSeconds: int32(),
  periodSeconds: int32(),
  successThreshold: int32(),
  failureThreshold: int32(),
  terminationGracePeriodSeconds: int64(),
});

export const seccompProfile = obj({ type: str(), localhostProfile: str() }, undefined, ["type"]);
export const seLinuxOptions = obj({ user: str(), role: str(), type: str(), level: str() });
export const windowsOptions = obj({ gmsaCredentialSpecName: str(), gmsaCredentialSpec: str(), runAsUserName: str(), hostProcess: bool() });

const securityContext = obj(
  {
    capabilities: obj({ add: stringArray(undefined, { "x-kubernetes-list-type": "atomic" }), drop: stringArray(undefined, { "x-kubernetes-list-type": "atomic" }) }),
    privileged: bool("Run container in privileged mode."),
    seLinuxOptions,
    windowsOptions,
    runAsUser: int64(),
    runAsGroup: int64(),
    runAsNonRoot: bool(),
    readOnlyRootFilesystem: bool(),
    allowPrivilegeEscalation: bool(),
    procMount: str(),
    seccompProfile,
    appArmorProfile: seccompProfile,
  },
  "SecurityContext holds security configuration that will be applied to a container.",
);

export const containerSchema = obj(
  {
    name: str("Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL)."),
    image: str("Container image name."),
    command: stringArray("Entrypoint array. Not executed within a shell.", { "x-kubernetes-list-type": "atomic" }),
    args: stringArray("Arguments to the entrypoint.", { "x-kubernetes-list-type": "atomic" }),
    workingDir: str(),
    ports: arr(containerPort, "List of ports to expose from the container.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "containerPort",
    }),
    envFrom: arr(envFromSource, undefined, { "x-kubernetes-list-type": "atomic" }),
    env: arr(envVar, "List of environment variables to set in the container.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "name",
    }),
    resources: obj({ limits: quantityMap(), requests: quantityMap(), claims: arr(obj({ name: str(), request: str() }, undefined, ["name"])) }),
    resizePolicy: arr(obj({ resourceName: str(), restartPolicy: str() }, undefined, ["resourceName", "restartPolicy"]), undefined, { "x-kubernetes-list-type": "atomic" }),
    restartPolicy: str("RestartPolicy defines the restart behavior of individual containers in a pod (init containers: Always makes a sidecar)."),
    volumeMounts: arr(volumeMount, "Pod volumes to mount into the container's filesystem.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "mountPath",
    }),
    volumeDevices: arr(obj({ name: str(), devicePath: str() }, undefined, ["name", "devicePath"]), undefined, {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "devicePath",
    }),
    livenessProbe: probe,
    readinessProbe: probe,
    startupProbe: probe,
    lifecycle: obj({ postStart: handler, preStop: handler, stopSignal: str() }),
    terminationMessagePath: str(undefined, { default: "/dev/termination-log" }),
    terminationMessagePolicy: str(undefined, { default: "File" }),
    imagePullPolicy: str("Image pull policy. One of Always, Never, IfNotPresent."),
    securityContext,
    stdin: bool("Whether this container should allocate a buffer for stdin in the container runtime."),
    stdinOnce: bool(),
    tty: bool("Whether this container should allocate a TTY for itself, also requires 'stdin' to be true."),
    targetContainerName: str("Ephemeral containers only: the container whose namespaces it shares."),
  },
  "A single application container that you want to run within a pod.",
  ["name"],
);
