// Shared shape of the access-review kinds: create-only, never stored, answered by virtualCreate
// with the request object plus its status (201).
import type { JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { kindSchema } from "../../schema/objectmeta.ts";
import type { RequestContext, ResourceDefinition } from "../types.ts";

export interface ReviewKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  description: string;
  spec?: JSONSchemaProps;
  status: JSONSchemaProps;
  create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject>;
}

export function reviewDefinition(k: ReviewKind): ResourceDefinition {
  const properties: Record<string, JSONSchemaProps> = { status: k.status };
  if (k.spec) properties.spec = k.spec;
  return {
    group: k.group,
    version: k.version,
    kind: k.kind,
    listKind: `${k.kind}List`,
    plural: k.plural,
    singular: k.kind.toLowerCase(),
    namespaced: k.namespaced,
    verbs: ["create"],
    schema: kindSchema({ description: k.description, properties, required: k.spec ? ["spec"] : [] }),
    hasStatus: false,
    strategy: {},
    strategicMergePatch: false,
    virtualCreate: (ctx, obj) => k.create(ctx, obj),
  };
}

// Small schema builders: reviews keep unknown fields (newer clients send fields such as
// resourceAttributes.fieldSelector that older servers only echo).
export const s = {
  str: (description: string): JSONSchemaProps => ({ type: "string", description }),
  bool: (description: string): JSONSchemaProps => ({ type: "boolean", description }),
  strings: (description: string): JSONSchemaProps => ({ type: "array", description, items: { type: "string" } }),
  extra: (description: string): JSONSchemaProps => ({
    type: "object",
    description,
    additionalProperties: { type: "array", items: { type: "string" } },
  }),
  obj: (description: string, properties: Record<string, JSONSchemaProps>, required?: string[]): JSONSchemaProps => ({
    type: "object",
    description,
    properties,
    ...(required ? { required } : {}),
    "x-kubernetes-preserve-unknown-fields": true,
  }),
  list: (description: string, items: JSONSchemaProps): JSONSchemaProps => ({ type: "array", description, items, "x-kubernetes-list-type": "atomic" }),
};

/** The object as it is answered: apiVersion/kind set, metadata kept. */
export function answer<T extends KubeObject>(group: string, version: string, kind: string, obj: KubeObject, fields: Partial<T>): T {
  return { ...obj, apiVersion: `${group}/${version}`, kind, metadata: obj.metadata ?? {}, ...fields } as T;
}
