// The schema of metav1.ObjectMeta and the whole-object wrapper every kind's schema is built with.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { arr, bool, int64, obj, str, stringArray, stringMap, time } from "./builders.ts";

const ownerReference = obj(
  {
    apiVersion: str("API version of the referent."),
    kind: str("Kind of the referent."),
    name: str("Name of the referent."),
    uid: str("UID of the referent."),
    controller: bool("If true, this reference points to the managing controller."),
    blockOwnerDeletion: bool("If true, the owner cannot be deleted from the key-value store until this reference is removed."),
  },
  "OwnerReference contains enough information to let you identify an owning object.",
  ["apiVersion", "kind", "name", "uid"],
);

const managedFieldsEntry = obj(
  {
    manager: str("Manager is an identifier of the workflow managing these fields."),
    operation: str("Operation is the type of operation which lead to this ManagedFieldsEntry being created."),
    apiVersion: str("APIVersion defines the version of this resource that this field set applies to."),
    time: time("Time is the timestamp of when the ManagedFields entry was added."),
    fieldsType: str("FieldsType is the discriminator for the different fields format and version."),
    fieldsV1: { type: "object", description: "FieldsV1 holds the first JSON version format.", "x-kubernetes-preserve-unknown-fields": true },
    subresource: str("Subresource is the name of the subresource used to update that object."),
  },
  "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
);

/** metav1.ObjectMeta, with the strategic-merge-patch metadata Kubernetes publishes for it. */
export const objectMetaSchema: JSONSchemaProps = obj(
  {
    name: str("Name must be unique within a namespace."),
    generateName: str("GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided."),
    namespace: str("Namespace defines the space within which each name must be unique."),
    selfLink: str("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
    uid: str("UID is the unique in time and space value for this object."),
    resourceVersion: str("An opaque value that represents the internal version of this object."),
    generation: int64("A sequence number representing a specific generation of the desired state."),
    creationTimestamp: time("CreationTimestamp is a timestamp representing the server time when this object was created."),
    deletionTimestamp: time("DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted."),
    deletionGracePeriodSeconds: int64("Number of seconds allowed for this object to gracefully terminate before it will be removed from the system."),
    labels: stringMap("Map of string keys and values that can be used to organize and categorize (scope and select) objects."),
    annotations: stringMap("Annotations is an unstructured key value map stored with a resource."),
    ownerReferences: arr(ownerReference, "List of objects depended by this object.", {
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "uid",
    }),
    finalizers: stringArray("Must be empty before the object is deleted from the registry.", {
      "x-kubernetes-patch-strategy": "merge",
    }),
    managedFields: arr(managedFieldsEntry, "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow."),
  },
  "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
);

export const API_VERSION_DESCRIPTION =
  "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.";
export const KIND_DESCRIPTION =
  "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.";

export interface KindSchemaOptions {
  description?: string;
  /** The kind's own top-level fields (spec, status, data, rules, ...). */
  properties: Record<string, JSONSchemaProps>;
  required?: string[];
}

/** The schema of a whole object: apiVersion, kind, metadata and the kind's own fields. */
export function kindSchema(opts: KindSchemaOptions): JSONSchemaProps {
  return {
    type: "object",
    ...(opts.description ? { description: opts.description } : {}),
    properties: {
      apiVersion: str(API_VERSION_DESCRIPTION),
      kind: str(KIND_DESCRIPTION),
      metadata: objectMetaSchema,
      ...opts.properties,
    },
    ...(opts.required && opts.required.length ? { required: opts.required } : {}),
  };
}

/** metav1.Condition and the core/v1 condition shapes share these fields. */
export function conditionSchema(description = "Condition contains details for one aspect of the current state of this API Resource.", extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return obj(
    {
      type: str("Type of condition."),
      status: str("Status of the condition, one of True, False, Unknown."),
      lastTransitionTime: time("Last time the condition transitioned from one status to another."),
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      message: str("Human-readable message indicating details about last transition."),
      ...extra,
    },
    description,
    ["type", "status"],
  );
}

/** metav1.LabelSelector */
export const labelSelectorSchema: JSONSchemaProps = obj(
  {
    matchLabels: stringMap("matchLabels is a map of {key,value} pairs."),
    matchExpressions: arr(
      obj(
        {
          key: str("key is the label key that the selector applies to."),
          operator: str("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
          values: stringArray("values is an array of string values."),
        },
        "A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.",
        ["key", "operator"],
      ),
      "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
    ),
  },
  "A label selector is a label query over a set of resources.",
);
