// The built-in kinds this server stores: core/v1 Namespace, Secret, ConfigMap, ServiceAccount,
// Node, Pod, Service, Endpoints and Event, discovery EndpointSlice, RBAC, coordination Lease, apiextensions CRDs, admissionregistration webhook configurations,
// and the read-only kinds of kubectl's prune allowlist (readonly-kinds.ts). (Access reviews, token
// requests and pods/binding are registered by their own modules.)
import { mutatingWebhookConfigurationDefinition, validatingWebhookConfigurationDefinition } from "./admissionregistration/definitions.ts";
import { crdDefinition } from "./apiextensions/customresourcedefinition/definition.ts";
import { leaseDefinition } from "./coordination/lease/definition.ts";
import { configMapDefinition } from "./core/configmap/definition.ts";
import { endpointsDefinition } from "./core/endpoints/definition.ts";
import { eventDefinition } from "./core/event/definition.ts";
import { namespaceDefinition } from "./core/namespace/definition.ts";
import { nodeDefinition } from "./core/node/definition.ts";
import { podDefinition } from "./core/pod/definition.ts";
import { secretDefinition } from "./core/secret/definition.ts";
import { serviceAccountDefinition } from "./core/serviceaccount/definition.ts";
import { serviceDefinition } from "./core/service/definition.ts";
import { endpointSliceDefinition } from "./discovery/endpointslice/definition.ts";
import { clusterRoleDefinition } from "./rbac/clusterrole/definition.ts";
import { clusterRoleBindingDefinition } from "./rbac/clusterrolebinding/definition.ts";
import { roleDefinition } from "./rbac/role/definition.ts";
import { roleBindingDefinition } from "./rbac/rolebinding/definition.ts";
import { readOnlyDefinitions } from "./readonly-kinds.ts";
import type { ResourceDefinition } from "./types.ts";

export function builtinDefinitions(): ResourceDefinition[] {
  return [
    namespaceDefinition,
    secretDefinition,
    configMapDefinition,
    serviceAccountDefinition,
    nodeDefinition,
    podDefinition,
    serviceDefinition,
    endpointsDefinition,
    endpointSliceDefinition,
    eventDefinition,
    roleDefinition,
    clusterRoleDefinition,
    roleBindingDefinition,
    clusterRoleBindingDefinition,
    leaseDefinition,
    crdDefinition,
    mutatingWebhookConfigurationDefinition,
    validatingWebhookConfigurationDefinition,
    ...readOnlyDefinitions(),
  ];
}
