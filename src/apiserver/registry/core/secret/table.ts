// kubectl get secrets: NAME TYPE DATA AGE
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { asString } from "../keys.ts";
import { ageCell, ageColumn, column, mapSize } from "../printers.ts";

export const secretTable: TableConvertor = {
  columns: [
    column("Type", "string", "Used to facilitate programmatic handling of secret data."),
    column("Data", "string", "Data contains the secret data."),
    ageColumn(),
  ],
  cells: (obj: KubeObject, now: Date) => [asString(obj.type), mapSize(obj.data), ageCell(obj, now)],
};
