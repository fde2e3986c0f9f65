// CRD fixtures shared by the integration suites.
import type { CustomResourceDefinition } from "../../src/apis/apiextensions/v1/types.ts";

/** gadgets.example.com/v1: namespaced, with a status subresource, spec.size/tags and status.phase. */
export const gadgetCrd: CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { size: { type: "integer" }, tags: { type: "array", items: { type: "string" } } } },
              status: { type: "object", properties: { phase: { type: "string" } } },
            },
          },
        },
      },
    ],
  },
};
