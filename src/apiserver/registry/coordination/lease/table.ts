// kubectl get leases: NAME HOLDER AGE
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { asRecord, asString } from "../../core/keys.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";

export const leaseTable: TableConvertor = {
  columns: [column("Holder", "string", "holderIdentity contains the identity of the holder of a current lease."), ageColumn()],
  cells: (obj: KubeObject, now: Date) => [asString(asRecord(obj.spec)?.holderIdentity), ageCell(obj, now)],
};
