// Server-side printing (meta.k8s.io Table) and PartialObjectMetadata conversion, as
// k8s.io/apiserver's rest/table.go and handlers/response.go do (docs/kubernetes-api.md#table-output).
import type { KubeList, KubeObject, ListMeta, Table, TableColumnDefinition, TableRow } from "../../apis/meta/v1/types.ts";
import { newBadRequest } from "../../apimachinery/errors.ts";
import type { ResourceDefinition } from "../registry/types.ts";

export type IncludeObject = "Metadata" | "Object" | "None";

export const NAME_COLUMN: TableColumnDefinition = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  priority: 0,
};

export const CREATED_AT_COLUMN: TableColumnDefinition = {
  name: "Created At",
  type: "date",
  format: "",
  description:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  priority: 0,
};

export function parseIncludeObject(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject");
  if (v === null || v === "" || v === "Metadata") return "Metadata";
  if (v === "Object" || v === "None") return v;
  throw newBadRequest(`includeObject: unsupported value "${v}": supported values are "None", "Metadata", "Object"`);
}

export function tableColumns(def: ResourceDefinition): TableColumnDefinition[] {
  return def.table ? [NAME_COLUMN, ...def.table.columns] : [NAME_COLUMN, CREATED_AT_COLUMN];
}

function cellsOf(def: ResourceDefinition, obj: KubeObject, now: Date): unknown[] {
  const name = obj.metadata?.name ?? "";
  if (def.table) return [name, ...def.table.cells(obj, now)];
  return [name, obj.metadata?.creationTimestamp ?? null];
}

/** metav1 PartialObjectMetadata of an object (its TypeMeta replaced, metadata kept whole). */
export function toPartial(obj: KubeObject, version: "v1" | "v1beta1" = "v1"): KubeObject {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function toPartialList(list: KubeList, version: "v1" | "v1beta1" = "v1"): KubeList {
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: `meta.k8s.io/${version}`,
    metadata: list.metadata,
    items: list.items.map((o) => toPartial(o, version)),
  };
}

export interface TableOptions {
  includeObject: IncludeObject;
  version: "v1" | "v1beta1";
  now: Date;
  /** Omit column definitions (watch events after the first). */
  noHeaders?: boolean;
}

/** A Table of objects; `listMeta` carries the list's resourceVersion and continue token (docs/kubernetes-api.md#table-output). */
export function toTable(def: ResourceDefinition, objs: KubeObject[], listMeta: ListMeta, opts: TableOptions): Table {
  const rows: TableRow[] = objs.map((obj) => {
    const row: TableRow = { cells: cellsOf(def, obj, opts.now) };
    if (opts.includeObject === "Metadata") row.object = toPartial(obj, opts.version);
    else if (opts.includeObject === "Object") row.object = obj;
    return row;
  });
  const metadata: ListMeta = { resourceVersion: listMeta.resourceVersion ?? "" };
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata,
    columnDefinitions: opts.noHeaders ? [] : tableColumns(def),
    rows,
  };
}
