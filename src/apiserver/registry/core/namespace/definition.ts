// core/v1 Namespace: cluster-scoped, with a status subresource.
import type { Namespace } from "../../../../apis/core/v1/types.ts";
import { validateNamespaceName } from "../../../../apimachinery/validation/names.ts";
import { enumStr, mergeList, obj, str, stringArray, time } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { ResourceDefinition } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { namespaceStrategy } from "./strategy.ts";
import { namespaceTable } from "./table.ts";

const namespaceCondition = obj(
  {
    type: str("Type of namespace controller condition."),
    status: str("Status of the condition, one of True, False, Unknown."),
    lastTransitionTime: time("Last time the condition transitioned from one status to another."),
    reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
    message: str("Human-readable message indicating details about last transition."),
  },
  "NamespaceCondition contains details about state of namespace.",
  ["type", "status"],
);

export const namespaceSchema = kindSchema({
  description: "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
  properties: {
    spec: obj(
      {
        finalizers: stringArray(
          "Finalizers is an opaque list of values that must be empty to permanently remove object from storage.",
          { "x-kubernetes-list-type": "atomic" },
        ),
      },
      "NamespaceSpec describes the attributes on a Namespace.",
    ),
    status: obj(
      {
        phase: { ...enumStr(["Active", "Terminating"], "Phase is the current lifecycle phase of the namespace."), default: "Active" },
        conditions: mergeList(namespaceCondition, "type", "Represents the latest available observations of a namespace's current state."),
      },
      "NamespaceStatus is information about the current status of a Namespace.",
    ),
  },
});

export const namespaceDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Namespace",
  listKind: "NamespaceList",
  plural: "namespaces",
  singular: "namespace",
  namespaced: false,
  shortNames: ["ns"],
  schema: namespaceSchema,
  hasStatus: true,
  strategy: namespaceStrategy,
  table: namespaceTable,
  fieldSelectors: {
    "status.phase": (o) => {
      const phase = asRecord((o as Namespace).status)?.phase;
      return typeof phase === "string" ? phase : "";
    },
  },
  strategicMergePatch: true,
  tracksGeneration: false,
  nameValidator: validateNamespaceName,
};
