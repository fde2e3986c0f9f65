// One label selector requirement (k8s.io/apimachinery/pkg/labels Requirement): construction with
// validation, matching, and the canonical string form.
import { type FieldError, Path, formatFieldErrors, invalid, notSupported } from "../field/errors.ts";
import { isQualifiedName, isValidLabelValue } from "../names/validation.ts";

/** The operator strings of k8s.io/apimachinery/pkg/selection. */
export type Operator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export const OPERATORS: readonly Operator[] = ["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"];

export interface Requirement {
  readonly key: string;
  /** "!" is DoesNotExist. */
  readonly operator: Operator;
  /** Sorted and de-duplicated for in/notin; exactly one for =, ==, !=, gt, lt; none for exists and !. */
  readonly values: readonly string[];
}

/** Thrown by the parser and by newRequirement; the public API turns it into a 400 StatusError. */
export class SelectorSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorSyntaxError";
  }
}

export function labelKeyError(key: string, path: Path): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalid(path, key, errs.join("; ")) : undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Validates and builds a requirement; throws SelectorSyntaxError listing every problem. */
export function newRequirement(key: string, operator: Operator, values: readonly string[]): Requirement {
  const errs: FieldError[] = [];
  const keyErr = labelKeyError(key, Path.root("key"));
  if (keyErr) errs.push(keyErr);
  const valuesPath = Path.root("values");
  let vals = [...values];
  switch (operator) {
    case "in":
    case "notin":
      if (vals.length === 0) errs.push(invalid(valuesPath, vals, "for 'in', 'notin' operators, values set can't be empty"));
      vals = [...new Set(vals)].sort();
      break;
    case "=":
    case "==":
    case "!=":
      if (vals.length !== 1) errs.push(invalid(valuesPath, vals, "exact-match compatibility requires one single value"));
      break;
    case "exists":
    case "!":
      if (vals.length !== 0) errs.push(invalid(valuesPath, vals, "values set must be empty for exists and does not exist"));
      break;
    case "gt":
    case "lt":
      if (vals.length !== 1) errs.push(invalid(valuesPath, vals, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalid(valuesPath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(notSupported(Path.root("operator"), operator, [...OPERATORS]));
  }
  vals.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalid(valuesPath.index(i).key(key), v, msgs.join("; ")));
  });
  if (errs.length) throw new SelectorSyntaxError(formatFieldErrors(errs));
  return { key, operator, values: vals };
}

function ownValue(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/** Kubernetes semantics: != and notin match objects without the key; =, ==, in, gt, lt need it. */
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const value = ownValue(labels, r.key);
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return value !== undefined && r.values.includes(value);
    case "!=":
    case "notin":
      return value === undefined || !r.values.includes(value);
    case "exists":
      return value !== undefined;
    case "!":
      return value === undefined;
    case "gt":
    case "lt": {
      if (value === undefined || r.values.length !== 1) return false;
      const have = parseInt64(value);
      const want = parseInt64(r.values[0]!);
      if (have === undefined || want === undefined) return false;
      return r.operator === "gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

const opText: Record<Operator, string> = {
  "=": "=",
  "==": "==",
  "!=": "!=",
  in: " in ",
  notin: " notin ",
  gt: ">",
  lt: "<",
  exists: "",
  "!": "",
};

/** `k=v`, `k in (a,b)`, `!k`, `k>5`: parseable by parseLabelSelector. */
export function requirementToString(r: Requirement): string {
  const head = (r.operator === "!" ? "!" : "") + r.key;
  if (r.operator === "exists" || r.operator === "!") return head;
  const vals = r.values.length === 1 ? r.values[0]! : [...r.values].sort().join(",");
  const set = r.operator === "in" || r.operator === "notin";
  return `${head}${opText[r.operator]}${set ? `(${vals})` : vals}`;
}
