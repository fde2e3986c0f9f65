// meta.k8s.io/v1 shapes as plain JSON interfaces. This module imports nothing.

export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

/** Any API object: typed kinds extend this with their own fields. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

export type CauseType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "InternalError"
  | "ExitCode"
  | "UnexpectedServerResponse"
  | "FieldManagerConflict"
  | "ResourceVersionTooLarge";

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export type StatusReason =
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "ServerTimeout"
  | "Timeout"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "ServiceUnavailable"
  | "NonZeroExitCode"
  | "";

export interface Status extends TypeMeta {
  metadata: ListMeta;
  status: "Success" | "Failure";
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends TypeMeta {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  orphanDependents?: boolean;
  dryRun?: string[];
}

export interface TableColumnDefinition {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: KubeObject;
}

export interface Table extends TypeMeta {
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  codes?: string[];
}
