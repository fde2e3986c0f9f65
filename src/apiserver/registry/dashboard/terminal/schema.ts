// OpenAPI v3 schema of dashboard.gardener.cloud/v1alpha1 Terminal (docs/terminals.md#the-terminal-kind),
// with the required fields and enums of gardener/terminal-controller-manager's CRD. The remaining
// rules (and their messages) are the validating webhook's (docs/terminals.md#validating-webhook).
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { bool, enumStr, obj, quantityMap, str, stringArray, stringMap, time, arr } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { objectReferenceSchema } from "../../core/schemas.ts";

const bindingKind = (description: string) => enumStr(["ClusterRoleBinding", "RoleBinding", ""], description);

const credentialsSchema: JSONSchemaProps = obj(
  {
    serviceAccountRef: objectReferenceSchema("ServiceAccountRef is a reference to a service account that should be used, usually to manage resources on the same cluster as the service account is residing in"),
    shootRef: obj(
      { namespace: str("Namespace is the namespace of the shoot cluster"), name: str("Name is the name of the shoot cluster") },
      "ShootRef references the shoot cluster. The admin kubeconfig retrieved from the shoots/adminkubeconfig endpoint is used",
      ["name", "namespace"],
    ),
    secretRef: obj(
      { namespace: str("Namespace of the Secret in the garden"), name: str("Name of the Secret; its key kubeconfig reaches the cluster") },
      "SecretRef references a kubeconfig Secret in the garden, used for seeds that are not ManagedSeeds",
      ["name", "namespace"],
    ),
  },
  "ClusterCredentials contains information how to authenticate against the cluster.",
);

const containerSchema: JSONSchemaProps = obj(
  {
    image: str("Image defines the image used for the container."),
    command: stringArray("Entrypoint array. Not executed within a shell."),
    args: stringArray("Arguments to the entrypoint."),
    resources: obj(
      { limits: quantityMap("Limits describes the maximum amount of compute resources allowed."), requests: quantityMap("Requests describes the minimum amount of compute resources required.") },
      "Compute Resources required by this container.",
    ),
    privileged: bool("Privileged determines if processes in a privileged container are essentially equivalent to root on the host."),
  },
  "Container belonging to the pod.",
  ["image"],
);

const podSchema: JSONSchemaProps = obj(
  {
    labels: stringMap("Map of string keys and values that can be used to organize and categorize (scope and select) objects."),
    container: containerSchema,
    containerImage: str("ContainerImage defines the image used for the container. Deprecated: use Container.Image instead."),
    privileged: bool("Privileged determines if processes in a privileged container are essentially equivalent to root on the host. Deprecated: use Container.Privileged instead."),
    hostNetwork: bool("HostNetwork determines if the pod should use the host's network namespace."),
    hostPID: bool("HostPID determines if the pod should use the host's pid namespace."),
    nodeSelector: stringMap("NodeSelector is a selector which must be true for the pod to fit on a node."),
  },
  "Pod defines the spec of the terminal pod.",
);

const targetSchema: JSONSchemaProps = obj(
  {
    credentials: credentialsSchema,
    cleanupProjectMembership: bool("CleanupProjectMembership indicates if the service account referenced by credentials.serviceAccountRef should be removed as project member if not referenced anymore by a Terminal resource."),
    namespace: str("Namespace is a reference to the namespace within the target cluster in which the resources should be placed."),
    temporaryNamespace: bool("TemporaryNamespace is a flag to indicate if the namespace should be ephemeral."),
    kubeconfigContextNamespace: str("KubeconfigContextNamespace is a reference to the namespace within the host cluster that should be used as default in the kubeconfig context"),
    apiServerServiceRef: objectReferenceSchema("APIServerServiceRef is a reference to the kube-apiserver service on the host cluster. Deprecated: use APIServer.ServiceRef instead"),
    apiServer: obj(
      {
        serviceRef: objectReferenceSchema("ServiceRef is a reference to the kube-apiserver service on the host cluster"),
        server: str("Server is the address of the target kubernetes cluster (https://hostname:port)."),
        caData: str("CAData holds PEM-encoded bytes (typically read from a root certificates bundle).", { format: "byte", nullable: true }),
      },
      "APIServer references the kube-apiserver of the target cluster.",
    ),
    roleName: str("RoleName is the name of the ClusterRole the \"access\" service account is bound to. Deprecated: use Authorization.RoleBindings[].RoleRef.NameSuffix instead"),
    bindingKind: bindingKind("BindingKind defines the desired role binding. Deprecated: use Authorization.RoleBindings[].BindingKind instead"),
    authorization: obj(
      {
        roleBindings: arr(
          obj(
            {
              nameSuffix: str("NameSuffix is the name suffix of the temporary (Cluster)RoleBinding that will be created."),
              roleRef: obj(
                { apiGroup: str("APIGroup is the group for the resource being referenced"), kind: str("Kind is the type of resource being referenced"), name: str("Name is the name of resource being referenced") },
                "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.",
                ["kind", "name"],
              ),
              bindingKind: bindingKind("BindingKind defines the desired role binding."),
            },
            undefined,
            ["bindingKind", "nameSuffix", "roleRef"],
          ),
          "RoleBindings defines the desired (Cluster)RoleBindings.",
        ),
        projectMemberships: arr(
          obj({ projectName: str("ProjectName is the name of the project"), roles: stringArray("Roles defines the gardener roles") }, undefined, ["projectName", "roles"]),
          "ProjectMemberships defines the (temporary) project memberships of the \"access\" service account.",
        ),
      },
      "Authorization the desired (temporary) privileges the \"access\" service account should receive.",
    ),
  },
  "TargetCluster contains information about the target cluster.",
  ["credentials", "kubeconfigContextNamespace"],
);

export const terminalSchema: JSONSchemaProps = kindSchema({
  description: "Terminal is the Schema for the terminals API",
  properties: {
    spec: obj(
      {
        identifier: str(),
        host: obj(
          {
            credentials: credentialsSchema,
            namespace: str("Namespace is the namespace where the pod resides in This field should not be set if TemporaryNamespace is set to true"),
            temporaryNamespace: bool("TemporaryNamespace is a flag to indicate if the namespace should be ephemeral."),
            pod: podSchema,
          },
          "HostCluster defines the desired state of the resources related to the host cluster.",
          ["credentials", "pod"],
        ),
        target: targetSchema,
      },
      "TerminalSpec defines the desired state of Terminal",
      ["host", "identifier", "target"],
    ),
    status: obj(
      {
        attachServiceAccountName: str("AttachServiceAccountName is the name of service account on the host cluster"),
        podName: str("PodName is the name of the pod on the host cluster"),
        lastOperation: obj(
          {
            description: str("A human readable message indicating details about the last operation."),
            lastUpdateTime: time("Last time the operation state transitioned from one to another."),
            state: str("Status of the last operation, one of Processing, Succeeded, Error."),
            type: str("Type of the last operation, one of Reconcile, Delete."),
          },
          "LastOperation indicates the type and the state of the last operation, along with a description message.",
          ["description", "lastUpdateTime", "state", "type"],
        ),
        lastError: obj(
          { description: str("A human readable message indicating details about the last error."), lastUpdateTime: time("Last time the error was reported") },
          "LastError contains details about the last error that occurred.",
          ["description"],
        ),
      },
      "TerminalStatus defines the observed state of Terminal",
    ),
  },
});
