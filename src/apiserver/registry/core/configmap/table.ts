// kubectl get configmaps: NAME DATA AGE (DATA counts data and binaryData entries).
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { ageCell, ageColumn, column, mapSize } from "../printers.ts";

export const configMapTable: TableConvertor = {
  columns: [column("Data", "string", "Data contains the configuration data."), ageColumn()],
  cells: (obj: KubeObject, now: Date) => [mapSize(obj.data) + mapSize(obj.binaryData), ageCell(obj, now)],
};
