// Label and field selection for list, watch and deletecollection. Supported field selectors:
// metadata.name, metadata.namespace (namespaced resources) and the definition's own fieldSelectors;
// anything else is a 400, as kube-apiserver answers.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { checkKnownFields, type FieldSelector, isEverythingFields, matchesFields, parseFieldSelector, singleNameOf } from "../../../apimachinery/fields/selector.ts";
import { isEverything, type LabelSelector, matches, parseLabelSelector } from "../../../apimachinery/labels/selector.ts";
import type { ResourceDefinition } from "../types.ts";

export interface Selection {
  /** True when the object passes both selectors. */
  matches(obj: KubeObject): boolean;
  /** n for `metadata.name=n`: the list can read one key. */
  singleName?: string;
  /** No selector at all. */
  everything: boolean;
}

export function knownFieldSelectors(def: ResourceDefinition): string[] {
  const known = ["metadata.name"];
  if (def.namespaced) known.push("metadata.namespace");
  for (const f of Object.keys(def.fieldSelectors ?? {})) if (!known.includes(f)) known.push(f);
  return known;
}

/** Parses both selectors; throws 400 BadRequest on syntax errors or unknown fields. */
export function parseSelection(def: ResourceDefinition, options: { labelSelector?: string; fieldSelector?: string }): Selection {
  const labels: LabelSelector = parseLabelSelector(options.labelSelector ?? "");
  const fields: FieldSelector = parseFieldSelector(options.fieldSelector ?? "");
  checkKnownFields(fields, knownFieldSelectors(def), def.crdName ? "custom" : "builtin");
  const everything = isEverything(labels) && isEverythingFields(fields);
  const getterFor = (obj: KubeObject) => (path: string): string | undefined => {
    if (path === "metadata.name") return obj.metadata.name;
    if (path === "metadata.namespace") return obj.metadata.namespace;
    return def.fieldSelectors?.[path]?.(obj);
  };
  const selection: Selection = {
    everything,
    matches: (obj) => everything || (matches(labels, obj.metadata.labels) && matchesFields(fields, getterFor(obj))),
  };
  const single = singleNameOf(fields);
  if (single !== undefined) selection.singleName = single;
  return selection;
}
