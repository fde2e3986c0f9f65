// core/v1 Secret.
import type { Secret } from "../../../../apis/core/v1/types.ts";
import { bool, bytesMap, str, stringMap } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { secretStrategy } from "./strategy.ts";
import { secretTable } from "./table.ts";

export const secretSchema = kindSchema({
  description: "Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.",
  properties: {
    data: bytesMap(
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string.",
    ),
    stringData: stringMap(
      "stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API.",
    ),
    type: str("Used to facilitate programmatic handling of secret data."),
    immutable: bool("Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified)."),
  },
});

export const secretDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Secret",
  listKind: "SecretList",
  plural: "secrets",
  singular: "secret",
  namespaced: true,
  schema: secretSchema,
  hasStatus: false,
  strategy: secretStrategy,
  table: secretTable,
  fieldSelectors: { type: (o) => (typeof (o as Secret).type === "string" ? (o as Secret).type : "") },
  strategicMergePatch: true,
  tracksGeneration: false,
};
