// ListOptions validation (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation):
// failures are 422 Invalid on kind ListOptions.meta.k8s.io, as kube-apiserver answers.
import type { StatusError } from "../../../apimachinery/errors.ts";
import { newInvalid } from "../../../apimachinery/errors.ts";
import { type FieldError, forbidden, notSupported } from "../../../apimachinery/field/errors.ts";
import type { ListOptions, WatchOptions } from "./interface.ts";

const LIST_OPTIONS = { group: "meta.k8s.io", kind: "ListOptions" };

function invalidListOptions(errs: FieldError[]): StatusError {
  return newInvalid(LIST_OPTIONS, "", errs);
}

function matchErrors(options: ListOptions): FieldError[] {
  const match = options.resourceVersionMatch as string | undefined;
  if (match === undefined || match === "") return [];
  if (match !== "Exact" && match !== "NotOlderThan") return [notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan"])];
  return [];
}

export function validateListOptions(options: ListOptions): void {
  const errs = matchErrors(options);
  const match = options.resourceVersionMatch;
  if (!errs.length && match) {
    if (options.continue) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    else if (!options.resourceVersion) errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    else if (match === "Exact" && options.resourceVersion === "0") {
      errs.push(forbidden("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 0)) {
    errs.push(forbidden("limit", "limit must be a non-negative integer"));
  }
  if (errs.length) throw invalidListOptions(errs);
}

export function validateWatchOptions(options: WatchOptions): void {
  const errs = matchErrors(options);
  if (options.sendInitialEvents !== undefined) {
    if (options.resourceVersionMatch !== "NotOlderThan") {
      errs.push(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (!options.allowWatchBookmarks) {
      errs.push(forbidden("allowWatchBookmarks", "sendInitialEvents requires setting allowWatchBookmarks to true"));
    }
  } else if (options.resourceVersionMatch) {
    errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
  }
  if (errs.length) throw invalidListOptions(errs);
}
