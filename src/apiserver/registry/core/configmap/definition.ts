// core/v1 ConfigMap.
import { bool, bytesMap, stringMap } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { configMapStrategy } from "./strategy.ts";
import { configMapTable } from "./table.ts";

export const configMapSchema = kindSchema({
  description: "ConfigMap holds configuration data for pods to consume.",
  properties: {
    data: stringMap(
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field.",
    ),
    binaryData: bytesMap(
      "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Using this field requires the apiserver and kubelet to be at least 1.10.",
    ),
    immutable: bool("Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified)."),
  },
});

export const configMapDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  listKind: "ConfigMapList",
  plural: "configmaps",
  singular: "configmap",
  namespaced: true,
  shortNames: ["cm"],
  schema: configMapSchema,
  hasStatus: false,
  strategy: configMapStrategy,
  table: configMapTable,
  strategicMergePatch: true,
  tracksGeneration: false,
};
