// kubectl get crds: NAME CREATED AT (the server's default table: the creation time itself).
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { CREATION_TIMESTAMP_DESCRIPTION, column, createdAtCell } from "../../core/printers.ts";

export const crdTable: TableConvertor = {
  columns: [column("Created At", "date", CREATION_TIMESTAMP_DESCRIPTION)],
  cells: (obj: KubeObject) => [createdAtCell(obj)],
};
