// Label selectors (k8s.io/apimachinery/pkg/labels): parse the `labelSelector` query syntax,
// convert a metav1.LabelSelector, match label sets, and print the canonical form.
//
// Syntax: comma-separated requirements, all ANDed: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
// `k notin (a,b)`, `k`, `!k`, `k>5`, `k<5`. `!=` and `notin` match objects without the key.
import type { LabelSelector as MetaLabelSelector } from "../../apis/meta/v1/types.ts";
import { newBadRequest } from "../errors.ts";
import { parseRequirements } from "./parser.ts";
import {
  type Operator,
  type Requirement,
  SelectorSyntaxError,
  newRequirement,
  requirementMatches,
  requirementToString,
} from "./requirement.ts";

export type { Operator, Requirement } from "./requirement.ts";
export { newRequirement, requirementMatches, requirementToString } from "./requirement.ts";

export interface LabelSelector {
  /** Sorted by key; empty means "everything" unless matchesNothing is set. */
  readonly requirements: readonly Requirement[];
  /** The selector of a nil metav1.LabelSelector: matches no object. */
  readonly matchesNothing?: boolean;
}

export function everything(): LabelSelector {
  return { requirements: [] };
}

export function nothing(): LabelSelector {
  return { requirements: [], matchesNothing: true };
}

export function isEverything(s: LabelSelector): boolean {
  return !s.matchesNothing && s.requirements.length === 0;
}

function toBadRequest(err: unknown): unknown {
  return err instanceof SelectorSyntaxError ? newBadRequest(err.message) : err;
}

/**
 * Parses `labelSelector` text; "" (or only whitespace) selects everything.
 * Throws a 400 BadRequest StatusError, e.g. `unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt`.
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return { requirements: parseRequirements(text) };
  } catch (err) {
    throw toBadRequest(err);
  }
}

const metaOperators: Record<string, Operator> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/**
 * metav1.LabelSelector -> selector (metav1.LabelSelectorAsSelector): undefined/null matches
 * nothing, an empty selector matches everything. Throws 400 BadRequest when invalid.
 */
export function selectorFromLabelSelector(ls: MetaLabelSelector | null | undefined): LabelSelector {
  if (ls === undefined || ls === null) return nothing();
  try {
    const reqs: Requirement[] = [];
    for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push(newRequirement(k, "=", [v]));
    for (const expr of ls.matchExpressions ?? []) {
      const op = Object.hasOwn(metaOperators, expr.operator) ? metaOperators[expr.operator] : undefined;
      if (!op) throw new SelectorSyntaxError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      reqs.push(newRequirement(expr.key, op, expr.values ?? []));
    }
    return { requirements: sortByKey(reqs) };
  } catch (err) {
    throw toBadRequest(err);
  }
}

function sortByKey(reqs: Requirement[]): Requirement[] {
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** True when every requirement matches; absent labels are an empty set. */
export function matches(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (selector.matchesNothing) return false;
  const set = labels ?? {};
  return selector.requirements.every((r) => requirementMatches(r, set));
}

/** Canonical text, parseable again: requirements sorted by key, joined by ",". */
export function toString(selector: LabelSelector): string {
  return selector.requirements.map(requirementToString).join(",");
}

/** A selector with one more requirement (kept sorted). */
export function addRequirement(selector: LabelSelector, r: Requirement): LabelSelector {
  return { ...selector, requirements: sortByKey([...selector.requirements, r]) };
}

/** For `key=value` or `key==value` (or `key in (value)`), the value; else undefined. */
export function requiresExactMatch(selector: LabelSelector, key: string): string | undefined {
  for (const r of selector.requirements) {
    if (r.key !== key) continue;
    if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
  }
  return undefined;
}

/** A selector matching exactly the given labels (labels.SelectorFromSet); throws 400 on invalid keys/values. */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): LabelSelector {
  return selectorFromLabelSelector({ matchLabels: { ...(set ?? {}) } });
}
