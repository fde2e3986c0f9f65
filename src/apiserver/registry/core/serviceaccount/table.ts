// kubectl get serviceaccounts: NAME SECRETS AGE
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column, listSize } from "../printers.ts";

export const serviceAccountTable: TableConvertor = {
  columns: [column("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."), ageColumn()],
  cells: (obj: KubeObject, now: Date) => [listSize(obj.secrets), ageCell(obj, now)],
};
