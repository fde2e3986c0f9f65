// Custom resources: one ResourceDefinition per served version of a CRD. The version's schema is
// wrapped into a whole-object schema (apiVersion, kind, ObjectMeta), the table comes from
// additionalPrinterColumns and field selectors from selectableFields. Custom resources take no
// strategic merge patch and need a resourceVersion on update, as in Kubernetes.
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from "../../../apis/apiextensions/v1/types.ts";
import type { KubeObject, TableColumnDefinition } from "../../../apis/meta/v1/types.ts";
import { type JSONPath, cellForJSONValue, parseJSONPath } from "../../schema/jsonpath.ts";
import { API_VERSION_DESCRIPTION, KIND_DESCRIPTION, objectMetaSchema } from "../../schema/objectmeta.ts";
import { CREATION_TIMESTAMP_DESCRIPTION } from "../core/printers.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../types.ts";
import { SCALE_KIND } from "./scale.ts";

/** The whole-object schema of a custom resource version. */
export function customResourceSchema(version: CustomResourceDefinitionVersion): JSONSchemaProps {
  const user: JSONSchemaProps = version.schema?.openAPIV3Schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  const props = user.properties ?? {};
  // The CRD may restrict metadata.name and metadata.generateName; everything else is ObjectMeta.
  const userMeta = props.metadata?.properties ?? {};
  const metaProps = { ...objectMetaSchema.properties };
  for (const k of ["name", "generateName"] as const) {
    if (userMeta[k]) metaProps[k] = { ...metaProps[k], ...userMeta[k], type: "string" };
  }
  return {
    ...user,
    type: "object",
    properties: {
      ...props,
      apiVersion: { type: "string", description: API_VERSION_DESCRIPTION },
      kind: { type: "string", description: KIND_DESCRIPTION },
      metadata: { ...objectMetaSchema, properties: metaProps },
    },
  };
}

interface Column {
  def: TableColumnDefinition;
  path: JSONPath | undefined;
}

/** Without additionalPrinterColumns, Kubernetes shows NAME and AGE. */
const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  { name: "Age", type: "date", description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: ".metadata.creationTimestamp" },
];

function parseOrUndefined(jsonPath: string): JSONPath | undefined {
  try {
    return parseJSONPath(jsonPath);
  } catch {
    return undefined;
  }
}

/** A table convertor for printer columns: each cell from the first value its JSONPath selects. */
export function printerColumnsTable(columns: CustomResourceColumnDefinition[] | undefined): TableConvertor {
  const cols: Column[] = (columns?.length ? columns : DEFAULT_COLUMNS).map((c) => ({
    def: { name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 },
    path: parseOrUndefined(c.jsonPath),
  }));
  return {
    columns: cols.map((c) => c.def),
    cells: (obj: KubeObject, now: Date) =>
      cols.map((c) => {
        const found = c.path?.find(obj) ?? [];
        return found.length ? cellForJSONValue(c.def.type, found[0], now) : null;
      }),
  };
}

/** Field selectors named after the selectable fields' paths without the leading dot ("spec.color"). */
export function selectableFieldSelectors(fields: { jsonPath: string }[] | undefined): Record<string, (obj: KubeObject) => string | undefined> {
  const out: Record<string, (obj: KubeObject) => string | undefined> = {};
  for (const f of fields ?? []) {
    const path = parseOrUndefined(f.jsonPath);
    if (!path) continue;
    out[f.jsonPath.replace(/^\./, "")] = (obj) => {
      const v = path.find(obj)[0];
      return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
    };
  }
  return out;
}

function customResourceStrategy(): Strategy {
  return { allowUnconditionalUpdate: false, allowCreateOnUpdate: false };
}

/** apiextensions-apiserver's text for a deprecated version without deprecationWarning. */
function deprecationWarning(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion): string | undefined {
  if (!version.deprecated) return undefined;
  return version.deprecationWarning ?? `${crd.spec.group}/${version.name} ${crd.spec.names.kind} is deprecated`;
}

/** One definition per served version of the CRD. */
export function definitionsFromCRD(crd: CustomResourceDefinition): ResourceDefinition[] {
  const { group, names, scope } = crd.spec;
  return crd.spec.versions
    .filter((v) => v.served)
    .map((v) => {
      const def: ResourceDefinition = {
        group,
        version: v.name,
        kind: names.kind,
        listKind: names.listKind || `${names.kind}List`,
        plural: names.plural,
        singular: names.singular || names.kind.toLowerCase(),
        namespaced: scope === "Namespaced",
        schema: customResourceSchema(v),
        hasStatus: v.subresources?.status !== undefined && v.subresources.status !== null,
        strategy: customResourceStrategy(),
        table: printerColumnsTable(v.additionalPrinterColumns),
        fieldSelectors: selectableFieldSelectors(v.selectableFields),
        strategicMergePatch: false,
        crdName: crd.metadata.name ?? `${names.plural}.${group}`,
      };
      const scale = v.subresources?.scale;
      if (scale) {
        def.scale = { ...scale };
        def.subresources = { scale: { verbs: ["get", "patch", "update"], responseKind: SCALE_KIND } };
      }
      const warning = deprecationWarning(crd, v);
      if (warning !== undefined) def.deprecationWarning = warning;
      if (names.shortNames?.length) def.shortNames = [...names.shortNames];
      if (names.categories?.length) def.categories = [...names.categories];
      return def;
    });
}
