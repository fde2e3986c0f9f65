// Paths and operations of the OpenAPI documents, shared by v3 (per group-version) and the v2 JSON
// document. PATCH operations carry x-kubernetes-group-version-kind and the fieldValidation and
// dryRun query parameters, so kubectl >= 1.25 trusts server-side validation (docs/kubernetes-api.md#openapi); SMP is
// advertised only for kinds that implement it.
import { verbsOf } from "./discovery.ts";
import { DELETE_OPTIONS, PATCH, type Schema, STATUS, schemaName } from "./openapi-schemas.ts";
import type { ResourceDefinition } from "../registry/types.ts";

export type Style = "v2" | "v3";

const param = (name: string, inWhere: "query" | "path", description: string, schema: Schema, required = false): Schema => ({
  name,
  in: inWhere,
  description,
  required: required || undefined,
  schema,
});

const Q = {
  pretty: () => param("pretty", "query", "If 'true', then the output is pretty printed.", { type: "string" }),
  dryRun: () =>
    param("dryRun", "query", "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed", { type: "string" }),
  fieldManager: () => param("fieldManager", "query", "fieldManager is a name associated with the actor or entity that is making these changes.", { type: "string" }),
  fieldValidation: () =>
    param("fieldValidation", "query", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.", {
      type: "string",
    }),
  force: () => param("force", "query", "Force is going to \"force\" Apply requests.", { type: "boolean" }),
  gracePeriodSeconds: () => param("gracePeriodSeconds", "query", "The duration in seconds before the object should be deleted.", { type: "integer" }),
  propagationPolicy: () => param("propagationPolicy", "query", "Whether and how garbage collection will be performed.", { type: "string" }),
  list: () => [
    param("allowWatchBookmarks", "query", "allowWatchBookmarks requests watch events with type \"BOOKMARK\".", { type: "boolean" }),
    param("continue", "query", "The continue option should be set when retrieving more results from the server.", { type: "string" }),
    param("fieldSelector", "query", "A selector to restrict the list of returned objects by their fields.", { type: "string" }),
    param("labelSelector", "query", "A selector to restrict the list of returned objects by their labels.", { type: "string" }),
    param("limit", "query", "limit is a maximum number of responses to return for a list call.", { type: "integer" }),
    param("resourceVersion", "query", "resourceVersion sets a constraint on what resource versions a request may be served from.", { type: "string" }),
    param("resourceVersionMatch", "query", "resourceVersionMatch determines how resourceVersion is applied to list calls.", { type: "string" }),
    param("sendInitialEvents", "query", "`sendInitialEvents=true` may be set together with `watch=true`.", { type: "boolean" }),
    param("timeoutSeconds", "query", "Timeout for the list/watch call.", { type: "integer" }),
    param("watch", "query", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.", { type: "boolean" }),
  ],
};

function camel(group: string, version: string): string {
  const g = group === "" ? ["core"] : group.split(/[.-]/);
  return [...g, version].map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : p)).join("");
}

interface OpSpec {
  action: string;
  id: string;
  gvk: { group: string; version: string; kind: string };
  params: Schema[];
  /** Request body: content types and schema name. */
  body?: { types: string[]; schema: string };
  /** Response codes -> schema name. */
  responses: Record<string, string>;
  description: string;
}

export interface Builder {
  style: Style;
  ref: (name: string) => Schema;
}

function operation(b: Builder, s: OpSpec): Schema {
  const params = s.params.map((p) => (b.style === "v3" ? p : v2Param(p)));
  const op: Schema = { description: s.description, operationId: s.id, tags: [s.gvk.group ? camel(s.gvk.group, s.gvk.version) : "coreV1"] };
  if (s.body && b.style === "v3") {
    const content: Record<string, Schema> = {};
    for (const t of s.body.types) content[t] = { schema: b.ref(s.body.schema) };
    op.requestBody = { content, required: s.action !== "delete" && s.action !== "deletecollection" };
  } else if (s.body) {
    params.push({ name: "body", in: "body", required: s.action !== "delete" && s.action !== "deletecollection", schema: b.ref(s.body.schema) });
    op.consumes = s.body.types;
  }
  if (params.length) op.parameters = params;
  const responses: Record<string, Schema> = {};
  for (const [code, schema] of Object.entries(s.responses)) {
    const description = code === "201" ? "Created" : code === "202" ? "Accepted" : "OK";
    responses[code] =
      b.style === "v3"
        ? { description, content: { "application/json": { schema: b.ref(schema) }, "application/yaml": { schema: b.ref(schema) } } }
        : { description, schema: b.ref(schema) };
  }
  responses["401"] = { description: "Unauthorized" };
  op.responses = responses;
  if (b.style === "v2") op.produces = ["application/json", "application/yaml"];
  op["x-kubernetes-action"] = s.action;
  op["x-kubernetes-group-version-kind"] = s.gvk;
  return op;
}

function v2Param(p: Schema): Schema {
  const { schema, ...rest } = p as { schema: Schema };
  return { ...rest, ...schema, uniqueItems: true };
}

function pathParams(b: Builder, names: string[]): Schema[] {
  const ps = names.map((n) =>
    param(n, "path", n === "namespace" ? "object name and auth scope, such as for teams and projects" : `name of the resource`, { type: "string" }, true),
  );
  ps.push(Q.pretty());
  return b.style === "v3" ? ps : ps.map(v2Param);
}

function clean(o: Schema): Schema {
  return JSON.parse(JSON.stringify(o)) as Schema;
}

/** What every operation of one resource shares. */
interface ResourceContext {
  b: Builder;
  def: ResourceDefinition;
  verbs: Set<string>;
  gvk: OpSpec["gvk"];
  kindName: string;
  listName: string;
  /** The operation ids' group-version part and, for namespaced kinds, "Namespaced". */
  gv: string;
  ns: string;
  patchTypes: string[];
}

const writeParams = () => [Q.dryRun(), Q.fieldManager(), Q.fieldValidation()];

/** The paths of one resource, keyed by URL template. */
export function resourcePaths(b: Builder, def: ResourceDefinition): Record<string, Schema> {
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.plural}` : `${base}/${def.plural}`;
  const item = `${collection}/{name}`;
  const patchTypes = ["application/json-patch+json", "application/merge-patch+json"];
  if (def.strategicMergePatch) patchTypes.push("application/strategic-merge-patch+json");
  patchTypes.push("application/apply-patch+yaml");
  const c: ResourceContext = {
    b,
    def,
    verbs: new Set(verbsOf(def)),
    gvk: { group: def.group, version: def.version, kind: def.kind },
    kindName: schemaName(def.group, def.version, def.kind),
    listName: schemaName(def.group, def.version, def.listKind),
    gv: camel(def.group, def.version),
    ns: def.namespaced ? "Namespaced" : "",
    patchTypes,
  };
  const paths: Record<string, Schema> = {};
  const coll = collectionPath(c);
  if (coll.get || coll.post || coll.delete) paths[collection] = clean(coll);
  if (def.namespaced && c.verbs.has("list")) {
    paths[`${base}/${def.plural}`] = clean({
      parameters: pathParams(b, []),
      get: operation(b, { action: "list", id: `list${c.gv}${def.kind}ForAllNamespaces`, gvk: c.gvk, params: Q.list(), responses: { "200": c.listName }, description: `list or watch objects of kind ${def.kind}` }),
    });
  }
  const one = itemPath(c);
  if (one.get || one.put || one.patch || one.delete) paths[item] = clean(one);
  if (def.hasStatus) paths[`${item}/status`] = clean(statusPath(c));
  return paths;
}

function collectionPath(c: ResourceContext): Schema {
  const { b, def, verbs, gvk, gv, ns, kindName } = c;
  const coll: Schema = { parameters: pathParams(b, def.namespaced ? ["namespace"] : []) };
  if (verbs.has("list")) coll.get = operation(b, { action: "list", id: `list${gv}${ns}${def.kind}`, gvk, params: Q.list(), responses: { "200": c.listName }, description: `list or watch objects of kind ${def.kind}` });
  if (verbs.has("create")) {
    coll.post = operation(b, {
      action: "post",
      id: `create${gv}${ns}${def.kind}`,
      gvk,
      params: writeParams(),
      body: { types: ["application/json", "application/yaml"], schema: kindName },
      responses: def.virtualCreate ? { "200": kindName, "201": kindName } : { "200": kindName, "201": kindName, "202": kindName },
      description: `create a ${def.kind}`,
    });
  }
  if (verbs.has("deletecollection")) {
    coll.delete = operation(b, {
      action: "deletecollection",
      id: `delete${gv}Collection${ns}${def.kind}`,
      gvk,
      params: [Q.dryRun(), Q.gracePeriodSeconds(), Q.propagationPolicy(), ...Q.list()],
      body: { types: ["application/json"], schema: DELETE_OPTIONS },
      responses: { "200": STATUS },
      description: `delete collection of ${def.kind}`,
    });
  }
  return coll;
}

function itemPath(c: ResourceContext): Schema {
  const { b, def, verbs, gvk, gv, ns, kindName, patchTypes } = c;
  const one: Schema = { parameters: pathParams(b, def.namespaced ? ["name", "namespace"] : ["name"]) };
  if (verbs.has("get")) one.get = operation(b, { action: "get", id: `read${gv}${ns}${def.kind}`, gvk, params: [], responses: { "200": kindName }, description: `read the specified ${def.kind}` });
  if (verbs.has("update")) {
    one.put = operation(b, { action: "put", id: `replace${gv}${ns}${def.kind}`, gvk, params: writeParams(), body: { types: ["application/json", "application/yaml"], schema: kindName }, responses: { "200": kindName, "201": kindName }, description: `replace the specified ${def.kind}` });
  }
  if (verbs.has("patch")) {
    one.patch = operation(b, { action: "patch", id: `patch${gv}${ns}${def.kind}`, gvk, params: [...writeParams(), Q.force()], body: { types: patchTypes, schema: PATCH }, responses: { "200": kindName, "201": kindName }, description: `partially update the specified ${def.kind}` });
  }
  if (verbs.has("delete")) {
    one.delete = operation(b, {
      action: "delete",
      id: `delete${gv}${ns}${def.kind}`,
      gvk,
      params: [Q.dryRun(), Q.gracePeriodSeconds(), Q.propagationPolicy()],
      body: { types: ["application/json"], schema: DELETE_OPTIONS },
      responses: { "200": STATUS, "202": STATUS },
      description: `delete a ${def.kind}`,
    });
  }
  return one;
}

function statusPath(c: ResourceContext): Schema {
  const { b, def, gvk, gv, ns, kindName, patchTypes } = c;
  return {
    parameters: pathParams(b, def.namespaced ? ["name", "namespace"] : ["name"]),
    get: operation(b, { action: "get", id: `read${gv}${ns}${def.kind}Status`, gvk, params: [], responses: { "200": kindName }, description: `read status of the specified ${def.kind}` }),
    put: operation(b, { action: "put", id: `replace${gv}${ns}${def.kind}Status`, gvk, params: writeParams(), body: { types: ["application/json", "application/yaml"], schema: kindName }, responses: { "200": kindName, "201": kindName }, description: `replace status of the specified ${def.kind}` }),
    patch: operation(b, { action: "patch", id: `patch${gv}${ns}${def.kind}Status`, gvk, params: [...writeParams(), Q.force()], body: { types: patchTypes, schema: PATCH }, responses: { "200": kindName, "201": kindName }, description: `partially update status of the specified ${def.kind}` }),
  };
}
