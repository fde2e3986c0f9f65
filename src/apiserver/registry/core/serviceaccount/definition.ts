// core/v1 ServiceAccount. Tokens (serviceaccounts/<name>/token) are added as a subresource elsewhere.
import { atomicList, bool, mergeList } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { localObjectReferenceSchema, objectReferenceSchema } from "../schemas.ts";
import { serviceAccountStrategy } from "./strategy.ts";
import { serviceAccountTable } from "./table.ts";

export const serviceAccountSchema = kindSchema({
  description:
    "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets",
  properties: {
    secrets: mergeList(
      objectReferenceSchema(),
      "name",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    imagePullSecrets: atomicList(
      localObjectReferenceSchema(),
      "ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount.",
    ),
    automountServiceAccountToken: bool(
      "AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted.",
    ),
  },
});

export const serviceAccountDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  listKind: "ServiceAccountList",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  namespaced: true,
  shortNames: ["sa"],
  schema: serviceAccountSchema,
  hasStatus: false,
  strategy: serviceAccountStrategy,
  table: serviceAccountTable,
  strategicMergePatch: true,
  tracksGeneration: false,
};
