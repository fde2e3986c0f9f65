// CustomResourceDefinition validation (apiextensions-apiserver pkg/apis/apiextensions/validation,
// the parts this server relies on): the name is <plural>.<group>, names are DNS-1035 labels,
// exactly one storage version and at least one served, every version has a structural schema,
// printer columns and selectable fields are well-formed.
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { type FieldError, duplicate, invalid, notSupported, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1035Label, isDNS1123Subdomain } from "../../../../apimachinery/names/validation.ts";
import { JSONPathError, parseJSONPath } from "../../../schema/jsonpath.ts";
import { asArray, asRecord, asString } from "../../core/keys.ts";
import { validateStructuralSchema } from "./structural.ts";

const COLUMN_TYPES = ["integer", "number", "string", "boolean", "date"];
const COLUMN_FORMATS = ["int32", "int64", "float", "double", "byte", "date", "date-time", "password"];
const MAX_SELECTABLE_FIELDS = 8;

function validateNames(names: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string, lower: boolean, prefix = "") => {
    const msgs = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (msgs.length) errs.push(invalid(`${path}.${field}`, value, prefix + msgs.join(",")));
  };
  const plural = asString(names.plural);
  const kind = asString(names.kind);
  const listKind = asString(names.listKind);
  if (!plural) errs.push(required(`${path}.plural`));
  else label("plural", plural, false);
  if (asString(names.singular)) label("singular", asString(names.singular), false);
  if (!kind) errs.push(required(`${path}.kind`));
  else label("kind", kind, true, "may have mixed case, but should otherwise match: ");
  if (!listKind) errs.push(required(`${path}.listKind`));
  else label("listKind", listKind, true, "may have mixed case, but should otherwise match: ");
  if (kind && kind === listKind) errs.push(invalid(`${path}.listKind`, listKind, "kind and listKind may not be the same"));
  asArray(names.shortNames).forEach((s, i) => {
    const msgs = isDNS1035Label(asString(s));
    if (msgs.length) errs.push(invalid(`${path}.shortNames[${i}]`, s, msgs.join(",")));
  });
  asArray(names.categories).forEach((c, i) => {
    const msgs = isDNS1035Label(asString(c));
    if (msgs.length) errs.push(invalid(`${path}.categories[${i}]`, c, msgs.join(",")));
  });
  return errs;
}

function validateColumns(version: CustomResourceDefinitionVersion, path: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(version.additionalPrinterColumns).forEach((c, i) => {
    const col = asRecord(c) ?? {};
    const p = `${path}.additionalPrinterColumns[${i}]`;
    if (!asString(col.name)) errs.push(required(`${p}.name`));
    if (typeof col.type === "string" && !COLUMN_TYPES.includes(col.type)) errs.push(notSupported(`${p}.type`, col.type, COLUMN_TYPES));
    if (typeof col.format === "string" && col.format && !COLUMN_FORMATS.includes(col.format)) errs.push(notSupported(`${p}.format`, col.format, COLUMN_FORMATS));
    const jp = asString(col.jsonPath);
    if (!jp) errs.push(required(`${p}.jsonPath`));
    else if (!jp.startsWith(".")) errs.push(invalid(`${p}.jsonPath`, jp, "must be a simple json path starting with ."));
    else {
      try {
        parseJSONPath(jp);
      } catch (err) {
        if (!(err instanceof JSONPathError)) throw err;
        errs.push(invalid(`${p}.jsonPath`, jp, err.message));
      }
    }
  });
  return errs;
}

/** The schema node a dotted field path refers to, following properties and additionalProperties. */
function schemaAt(schema: JSONSchemaProps | undefined, fields: string[]): JSONSchemaProps | undefined {
  let node = schema;
  for (const f of fields) {
    if (!node) return undefined;
    node = node.properties?.[f] ?? (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined);
  }
  return node;
}

function validateSelectableFields(version: CustomResourceDefinitionVersion, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const fields = asArray(version.selectableFields);
  if (fields.length > MAX_SELECTABLE_FIELDS) {
    errs.push({ type: "FieldValueTooMany", field: `${path}.selectableFields`, value: fields.length, detail: `must have at most ${MAX_SELECTABLE_FIELDS} items` });
  }
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}.selectableFields[${i}].jsonPath`;
    const jp = asString(asRecord(f)?.jsonPath);
    if (!jp) return errs.push(required(p));
    if (seen.has(jp)) errs.push(duplicate(p, jp));
    seen.add(jp);
    if (!/^(\.[A-Za-z0-9_-]+)+$/.test(jp)) return errs.push(invalid(p, jp, "must be a simple json path of field names starting with ."));
    const node = schemaAt(version.schema?.openAPIV3Schema, jp.slice(1).split("."));
    if (!node) errs.push(invalid(p, jp, "is an invalid path: does not refer to a valid field"));
    else if (!["string", "integer", "boolean"].includes(node.type ?? "")) {
      errs.push(invalid(p, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."));
    }
  });
  return errs;
}

function validateVersions(versions: CustomResourceDefinitionVersion[]): FieldError[] {
  const errs: FieldError[] = [];
  const names = versions.map((v) => asString(asRecord(v)?.name));
  if (new Set(names).size !== names.length) errs.push(invalid("spec.versions", names, "must contain unique version names"));
  if (versions.filter((v) => v?.storage === true).length !== 1) {
    errs.push(invalid("spec.versions", names, "must have exactly one version marked as storage version"));
  }
  if (!versions.some((v) => v?.served === true)) errs.push(invalid("spec.versions", names, "must have at least one version marked as served"));
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (!asRecord(v)) return;
    const name = asString(v.name);
    if (name) for (const msg of isDNS1035Label(name)) errs.push(invalid(`${p}.name`, name, msg));
    const schema = asRecord(v.schema)?.openAPIV3Schema;
    if (!asRecord(schema)) errs.push(required(`${p}.schema.openAPIV3Schema`, "schemas are required"));
    else errs.push(...validateStructuralSchema(schema as JSONSchemaProps, `${p}.schema.openAPIV3Schema`));
    const scale = asRecord(asRecord(v.subresources)?.scale);
    if (scale) {
      for (const k of ["specReplicasPath", "statusReplicasPath"]) {
        const jp = asString(scale[k]);
        if (jp && !jp.startsWith(".")) errs.push(invalid(`${p}.subresources.scale.${k}`, jp, "should be a json path under either `.spec` or `.status`"));
      }
    }
    errs.push(...validateColumns(v, p), ...validateSelectableFields(v, p));
  });
  return errs;
}

export function validateCRD(crd: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(crd.spec) ?? {};
  const group = asString(spec.group);
  const names = asRecord(spec.names) ?? {};
  const expected = `${asString(names.plural)}.${group}`;
  if (crd.metadata.name !== expected) errs.push(invalid("metadata.name", crd.metadata.name ?? "", 'must be spec.names.plural+"."+spec.group'));
  if (!group) errs.push(required("spec.group"));
  else {
    for (const msg of isDNS1123Subdomain(group)) errs.push(invalid("spec.group", group, msg));
    if (!group.includes(".")) errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  errs.push(...validateNames(names, "spec.names"));
  const versions = asArray(spec.versions) as CustomResourceDefinitionVersion[];
  errs.push(...validateVersions(versions));
  const strategy = asRecord(spec.conversion)?.strategy;
  if (typeof strategy === "string" && strategy !== "None") errs.push(notSupported("spec.conversion.strategy", strategy, ["None"]));
  if (spec.preserveUnknownFields === true) {
    errs.push(invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"));
  }
  return errs;
}

/** Versions ever stored must stay in spec.versions until storage is migrated. */
export function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const names = new Set(asArray(crd.spec?.versions).map((v) => asString(asRecord(v)?.name)));
  return asArray(asRecord(crd.status)?.storedVersions).flatMap((v, i) =>
    names.has(asString(v)) ? [] : [invalid(`status.storedVersions[${i}]`, v, "must appear in spec.versions")],
  );
}

export function validateCRDUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  if (asString(crd.spec?.scope) !== asString(old.spec?.scope)) errs.push(invalid("spec.scope", crd.spec?.scope, "field is immutable"));
  if (asString(crd.spec?.group) !== asString(old.spec?.group)) errs.push(invalid("spec.group", crd.spec?.group, "field is immutable"));
  return [...errs, ...validateCRD(crd), ...validateStoredVersions(crd)];
}
