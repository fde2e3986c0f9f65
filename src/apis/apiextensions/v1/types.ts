// apiextensions.k8s.io/v1: CustomResourceDefinition and the OpenAPI v3 schema shape
// (JSONSchemaProps) that built-in kinds use too, for validation, defaulting, pruning,
// strategic-merge-patch metadata and the served OpenAPI documents.
import type { Condition, KubeObject } from "../../meta/v1/types.ts";

export interface JSONSchemaProps {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: unknown;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  /** Strategic merge patch: "merge", "replace", "retainKeys" or "merge,retainKeys". Built-in kinds only. */
  "x-kubernetes-patch-strategy"?: string;
  "x-kubernetes-patch-merge-key"?: string;
  "x-kubernetes-validations"?: { rule: string; message?: string }[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: "Namespaced" | "Cluster";
  versions: CustomResourceDefinitionVersion[];
  conversion?: { strategy: "None" | "Webhook" };
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionStatus {
  conditions?: Condition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
