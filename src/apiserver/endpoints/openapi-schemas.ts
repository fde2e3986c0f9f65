// Component schemas for the served OpenAPI documents: names as kube-openapi spells them
// (io.k8s.api.core.v1.Secret) or the reversed group for others (cloud.gardener.operations.v1alpha1.Bastion),
// each resource's schema with its x-kubernetes-group-version-kind, and the meta.k8s.io types they refer to.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import type { ResourceDefinition } from "../registry/types.ts";

export type Schema = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
const OWNER_REFERENCE = `${META}.OwnerReference`;
const MANAGED_FIELDS_ENTRY = `${META}.ManagedFieldsEntry`;
const STATUS_DETAILS = `${META}.StatusDetails`;
const STATUS_CAUSE = `${META}.StatusCause`;
const PRECONDITIONS = `${META}.Preconditions`;

/** Prefix of component names for a group/version. */
export function schemaPrefix(group: string, version: string): string {
  if (group === "") return `io.k8s.api.core.${version}`;
  if (group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group.endsWith(".k8s.io")) return `io.k8s.api.${group.split(".")[0]}.${version}`;
  return `${group.split(".").reverse().join(".")}.${version}`;
}

export function schemaName(group: string, version: string, kind: string): string {
  return `${schemaPrefix(group, version)}.${kind}`;
}

const str = (description: string): Schema => ({ type: "string", description });
const ref = (prefix: string, name: string): Schema => ({ $ref: `${prefix}${name}` });
const stringMap = (description: string): Schema => ({ type: "object", additionalProperties: { type: "string", default: "" }, description });
const typeMetaProps = {
  apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
  kind: str("Kind is a string value representing the REST resource this object represents."),
};

/** The meta.k8s.io/v1 schemas that resource schemas and operations refer to. */
export function metaSchemas(prefix: string): Record<string, Schema> {
  return {
    [OBJECT_META]: {
      type: "object",
      description: "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
      properties: {
        name: str("Name must be unique within a namespace."),
        generateName: str("GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided."),
        namespace: str("Namespace defines the space within which each name must be unique."),
        uid: str("UID is the unique in time and space value for this object."),
        resourceVersion: str("An opaque value that represents the internal version of this object."),
        generation: { type: "integer", format: "int64", description: "A sequence number representing a specific generation of the desired state." },
        creationTimestamp: { type: "string", format: "date-time", description: "CreationTimestamp is a timestamp representing the server time when this object was created." },
        deletionTimestamp: { type: "string", format: "date-time", description: "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted." },
        deletionGracePeriodSeconds: { type: "integer", format: "int64", description: "Number of seconds allowed for this object to gracefully terminate." },
        labels: stringMap("Map of string keys and values that can be used to organize and categorize objects."),
        annotations: stringMap("Annotations is an unstructured key value map stored with a resource."),
        ownerReferences: {
          type: "array",
          items: { ...ref(prefix, OWNER_REFERENCE), default: {} },
          description: "List of objects depended by this object.",
          "x-kubernetes-list-map-keys": ["uid"],
          "x-kubernetes-list-type": "map",
          "x-kubernetes-patch-merge-key": "uid",
          "x-kubernetes-patch-strategy": "merge",
        },
        finalizers: {
          type: "array",
          items: { type: "string", default: "" },
          description: "Must be empty before the object is deleted from the registry.",
          "x-kubernetes-list-type": "set",
          "x-kubernetes-patch-strategy": "merge",
        },
        managedFields: { type: "array", items: { ...ref(prefix, MANAGED_FIELDS_ENTRY), default: {} }, description: "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow." },
        selfLink: str("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
      },
    },
    [OWNER_REFERENCE]: {
      type: "object",
      description: "OwnerReference contains enough information to let you identify an owning object.",
      required: ["apiVersion", "kind", "name", "uid"],
      properties: {
        apiVersion: str("API version of the referent."),
        kind: str("Kind of the referent."),
        name: str("Name of the referent."),
        uid: str("UID of the referent."),
        controller: { type: "boolean", description: "If true, this reference points to the managing controller." },
        blockOwnerDeletion: { type: "boolean", description: "If true, the owner cannot be deleted from the key-value store until this reference is removed." },
      },
      "x-kubernetes-map-type": "atomic",
    },
    [MANAGED_FIELDS_ENTRY]: {
      type: "object",
      description: "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
      properties: {
        apiVersion: str("APIVersion defines the version of this resource that this field set applies to."),
        fieldsType: str("FieldsType is the discriminator for the different fields format and version."),
        fieldsV1: { type: "object", description: "FieldsV1 holds the first JSON version format as described in the \"FieldsV1\" type." },
        manager: str("Manager is an identifier of the workflow managing these fields."),
        operation: str("Operation is the type of operation which lead to this ManagedFieldsEntry being created."),
        subresource: str("Subresource is the name of the subresource used to update that object."),
        time: { type: "string", format: "date-time", description: "Time is the timestamp of when the ManagedFields entry was added." },
      },
    },
    [LIST_META]: {
      type: "object",
      description: "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
      properties: {
        continue: str("continue may be set if the user set a limit on the number of items returned."),
        remainingItemCount: { type: "integer", format: "int64", description: "The number of subsequent items in the list which are not included in this list response." },
        resourceVersion: str("String that identifies the server's internal version of this object."),
        selfLink: str("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
      },
    },
    [STATUS]: {
      type: "object",
      description: "Status is a return value for calls that don't return other objects.",
      properties: {
        ...typeMetaProps,
        code: { type: "integer", format: "int32", description: "Suggested HTTP return code for this status, 0 if not set." },
        details: { allOf: [ref(prefix, STATUS_DETAILS)], description: "Extended data associated with the reason." },
        message: str("A human-readable description of the status of this operation."),
        metadata: { allOf: [ref(prefix, LIST_META)], default: {}, description: "Standard list metadata." },
        reason: str("A machine-readable description of why this operation is in the \"Failure\" status."),
        status: str("Status of the operation. One of: \"Success\" or \"Failure\"."),
      },
      "x-kubernetes-group-version-kind": [{ group: "", kind: "Status", version: "v1" }],
    },
    [STATUS_DETAILS]: {
      type: "object",
      description: "StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.",
      properties: {
        causes: { type: "array", items: { ...ref(prefix, STATUS_CAUSE), default: {} }, "x-kubernetes-list-type": "atomic" },
        group: str("The group attribute of the resource associated with the status StatusReason."),
        kind: str("The kind attribute of the resource associated with the status StatusReason."),
        name: str("The name attribute of the resource associated with the status StatusReason."),
        retryAfterSeconds: { type: "integer", format: "int32", description: "If specified, the time in seconds before the operation should be retried." },
        uid: str("UID of the resource."),
      },
    },
    [STATUS_CAUSE]: {
      type: "object",
      description: "StatusCause provides more information about an api.Status failure.",
      properties: { field: str("The field of the resource that has caused this error."), message: str("A human-readable description of the cause of the error."), reason: str("A machine-readable description of the cause of the error.") },
    },
    [DELETE_OPTIONS]: {
      type: "object",
      description: "DeleteOptions may be provided when deleting an API object.",
      properties: {
        ...typeMetaProps,
        dryRun: { type: "array", items: { type: "string", default: "" }, "x-kubernetes-list-type": "atomic", description: "When present, indicates that modifications should not be persisted." },
        gracePeriodSeconds: { type: "integer", format: "int64", description: "The duration in seconds before the object should be deleted." },
        orphanDependents: { type: "boolean", description: "Deprecated: please use the PropagationPolicy." },
        preconditions: { allOf: [ref(prefix, PRECONDITIONS)], description: "Must be fulfilled before a deletion is carried out." },
        propagationPolicy: str("Whether and how garbage collection will be performed."),
      },
    },
    [PRECONDITIONS]: {
      type: "object",
      description: "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.",
      properties: { resourceVersion: str("Specifies the target ResourceVersion"), uid: str("Specifies the target UID.") },
    },
    [PATCH]: { type: "object", description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body." },
  };
}

function gvk(group: string, version: string, kind: string): Schema[] {
  return [{ group, kind, version }];
}

/** The resource's schema (deep-copied) with metadata referring to ObjectMeta and its GVK extension. */
export function resourceSchema(def: ResourceDefinition, prefix: string, v2: boolean): Schema {
  const s = (v2 ? toV2(def.schema) : structuredClone(def.schema)) as Schema;
  s.type = "object";
  const props = { ...((s.properties as Record<string, Schema> | undefined) ?? {}) };
  props.apiVersion ??= typeMetaProps.apiVersion;
  props.kind ??= typeMetaProps.kind;
  props.metadata = { allOf: [ref(prefix, OBJECT_META)], default: {}, description: "Standard object's metadata." };
  s.properties = props;
  s["x-kubernetes-group-version-kind"] = gvk(def.group, def.version, def.kind);
  return s;
}

export function listSchema(def: ResourceDefinition, prefix: string): Schema {
  return {
    type: "object",
    description: `${def.listKind} is a list of ${def.kind}`,
    required: ["items"],
    properties: {
      ...typeMetaProps,
      items: { type: "array", items: ref(prefix, schemaName(def.group, def.version, def.kind)), description: `List of ${def.plural}.` },
      metadata: { allOf: [ref(prefix, LIST_META)], default: {}, description: "Standard list metadata." },
    },
    "x-kubernetes-group-version-kind": gvk(def.group, def.version, def.listKind),
  };
}

const NOT_IN_V2 = new Set(["nullable", "anyOf", "oneOf", "not"]);

/** Swagger 2.0 has no nullable/anyOf/oneOf/not: drop them (as kube-openapi does for v2). */
export function toV2(schema: JSONSchemaProps | unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toV2);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (NOT_IN_V2.has(k)) continue;
    if (k === "properties" && v && typeof v === "object") {
      out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, toV2(pv)]));
    } else if (k === "default" || k === "enum" || k === "example") {
      out[k] = structuredClone(v);
    } else {
      out[k] = toV2(v);
    }
  }
  return out;
}
