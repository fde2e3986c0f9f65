// Shared pieces of the built-in kinds' table convertors, matching Kubernetes' printers
// (pkg/printers/internalversion): column definitions and the AGE cell.
import type { KubeObject, TableColumnDefinition } from "../../../apis/meta/v1/types.ts";
import { translateTimestampSince } from "./age.ts";
import { metaTime } from "../../../utils/time.ts";
import { isRecord } from "../../../utils/guards.ts";

export const CREATION_TIMESTAMP_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.";

export function column(
  name: string,
  type: TableColumnDefinition["type"],
  description: string,
  opts: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: opts.format ?? "", description, priority: opts.priority ?? 0 };
}

/** Built-in printers show ages as strings ("5m"), computed from creationTimestamp. */
export function ageColumn(): TableColumnDefinition {
  return column("Age", "string", CREATION_TIMESTAMP_DESCRIPTION);
}

export function ageCell(obj: KubeObject, now: Date): string {
  return translateTimestampSince(obj.metadata?.creationTimestamp, now);
}

/** RBAC roles and CRDs print the creation time itself: "2024-01-01T00:00:00Z". */
export function createdAtCell(obj: KubeObject): string {
  const t = Date.parse(obj.metadata?.creationTimestamp ?? "");
  return Number.isNaN(t) ? "" : metaTime(t);
}

/** Object keys of a map-valued field, tolerating anything that is not a map. */
export function mapSize(v: unknown): number {
  return isRecord(v) ? Object.keys(v).length : 0;
}

export function listSize(v: unknown): number {
  return Array.isArray(v) ? v.length : 0;
}
