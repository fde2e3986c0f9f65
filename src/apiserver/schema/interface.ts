// A compiled OpenAPI v3 (structural) schema: the one source for validation, defaulting,
// unknown-field pruning (and strict decoding), shared by built-in kinds and CRDs.
import type { FieldError } from "../../apimachinery/field/errors.ts";

export interface CompiledSchema {
  /**
   * Removes, in place, fields the schema does not know (honouring x-kubernetes-preserve-unknown-fields
   * and x-kubernetes-embedded-resource; `metadata` keeps only ObjectMeta fields). Returns the removed
   * paths (e.g. "spec.foo", "spec.items[0].bar") for `fieldValidation=Strict|Warn`.
   */
  prune(obj: unknown): string[];
  /** Applies schema defaults in place (after pruning, as kube-apiserver does). */
  applyDefaults(obj: unknown): void;
  /** Checks types, enums, patterns, required, min/max...; every error with its field path. */
  validate(obj: unknown): FieldError[];
}
