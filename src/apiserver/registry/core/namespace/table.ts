// kubectl get namespaces: NAME STATUS AGE
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column } from "../printers.ts";
import { asRecord, asString } from "../keys.ts";

export const namespaceTable: TableConvertor = {
  columns: [column("Status", "string", "The status of the namespace"), ageColumn()],
  cells: (obj: KubeObject, now: Date) => [asString(asRecord(obj.status)?.phase), ageCell(obj, now)],
};
