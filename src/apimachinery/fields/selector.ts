// Field selectors (k8s.io/apimachinery/pkg/fields): `f=v`, `f==v`, `f!=v`, comma-separated and
// ANDed. Values escape `\`, `,` and `=` as `\\`, `\,` and `\=`; field names have no escaping and
// are split at the first operator.
import { newBadRequest } from "../errors.ts";

export type FieldOperator = "=" | "==" | "!=";

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** Unescaped. */
  readonly value: string;
}

export interface FieldSelector {
  /** Sorted by their original text, as Go does; empty means "everything". */
  readonly requirements: readonly FieldRequirement[];
}

/** Returns the value of a field path such as "metadata.name", or undefined when absent. */
export type FieldGetter = (path: string) => string | undefined;

export function everythingFields(): FieldSelector {
  return { requirements: [] };
}

/** Splits at unescaped commas; escapes stay in the terms. */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// "==" before "=" so that no "=" is left at the start of the value.
const TERM_OPERATORS: readonly FieldOperator[] = ["!=", "==", "="];

function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** Reverses escapeValue; throws 400 on unknown escapes and on bare `,` or `=`. */
export function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== "\\" && c !== "," && c !== "=") {
        throw newBadRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === "\\") {
      inSlash = true;
    } else if (c === "," || c === "=") {
      throw newBadRequest(`invalid field selector: unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw newBadRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** Escapes `\`, `,` and `=` so a value can be embedded in selector text. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Parses `fieldSelector` text; "" selects everything. Throws a 400 BadRequest StatusError. */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (!split) throw newBadRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const [field, operator, raw] = split;
    requirements.push({ field, operator, value: unescapeValue(raw) });
  }
  return { requirements };
}

/** Builds a selector from `field -> value` equalities (fields.SelectorFromSet). */
export function fieldSelectorFromSet(set: Readonly<Record<string, string>>): FieldSelector {
  const requirements = Object.keys(set)
    .sort()
    .map((field): FieldRequirement => ({ field, operator: "=", value: set[field]! }));
  return { requirements };
}

/** Missing fields compare as "" (Go's fields.Set.Get). */
export function matchesFields(selector: FieldSelector, getField: FieldGetter): boolean {
  return selector.requirements.every((r) => {
    const have = getField(r.field) ?? "";
    return r.operator === "!=" ? have !== r.value : have === r.value;
  });
}

export function requirementsOf(selector: FieldSelector): readonly FieldRequirement[] {
  return selector.requirements;
}

export function isEverythingFields(selector: FieldSelector): boolean {
  return selector.requirements.length === 0;
}

/** Canonical text: `f=v` / `f!=v` (== is printed as =), values escaped, joined by ",". */
export function fieldSelectorToString(selector: FieldSelector): string {
  return selector.requirements
    .map((r) => `${r.field}${r.operator === "!=" ? "!=" : "="}${escapeValue(r.value)}`)
    .join(",");
}

/** The value v of a `field=v` (or `field==v`) requirement, if there is one. */
export function requiresExactMatch(selector: FieldSelector, field: string): string | undefined {
  for (const r of selector.requirements) if (r.field === field && r.operator !== "!=") return r.value;
  return undefined;
}

/** n for `metadata.name=n`: lets list/watch be narrowed to one object (and RBAC resourceNames apply). */
export function singleNameOf(selector: FieldSelector): string | undefined {
  return requiresExactMatch(selector, "metadata.name");
}

/**
 * Rejects fields the resource does not support with Kubernetes' messages: for custom resources
 * `"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"`, for
 * built-in kinds (`style: "builtin"`) `field label not supported: spec.x`.
 */
export function checkKnownFields(selector: FieldSelector, known: readonly string[], style: "custom" | "builtin" = "custom"): void {
  for (const r of selector.requirements) {
    if (known.includes(r.field)) continue;
    if (style === "builtin") throw newBadRequest(`field label not supported: ${r.field}`);
    throw newBadRequest(`${JSON.stringify(r.field)} is not a known field selector: only ${known.map((k) => JSON.stringify(k)).join(", ")}`);
  }
}

/** Field getter over a JSON object for dotted paths ("metadata.name", "spec.nodeName"); non-strings print as JSON. */
export function objectFieldGetter(obj: unknown): FieldGetter {
  return (path) => {
    let cur: unknown = obj;
    for (const part of path.split(".")) {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur) || !Object.hasOwn(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === "string" ? cur : typeof cur === "object" ? JSON.stringify(cur) : String(cur);
  };
}
