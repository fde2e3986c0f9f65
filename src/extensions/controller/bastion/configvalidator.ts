// Optional provider check run at the start of every reconcile (docs/bastion.md#config-validator). A non-empty
// list fails the reconcile: the aggregated errors become the cause, described as
// `Error checking bastion config: <errors>`, with code ERR_CONFIGURATION_PROBLEM unless one of
// the errors is an InternalError (then the problem may be transient and carries no code).
import { ERR_CONFIGURATION_PROBLEM, type Cluster, type ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { type FieldError, formatFieldErrors } from "../../../apimachinery/field/errors.ts";
import { ErrorWithCodes } from "../errors.ts";
import type { ActuatorContext } from "./actuator.ts";

export interface ConfigValidator {
  validate(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): FieldError[] | Promise<FieldError[]>;
}

/** The error a failed validation produces (undefined for an empty list). */
export function configValidationError(errs: FieldError[]): ErrorWithCodes | undefined {
  if (errs.length === 0) return undefined;
  const internal = errs.some((e) => e.type === "InternalError");
  return new ErrorWithCodes(formatFieldErrors(errs), internal ? [] : [ERR_CONFIGURATION_PROBLEM]);
}
