// Lease validation (pkg/apis/coordination/validation ValidateLeaseSpec).
import type { Lease } from "../../../../apis/coordination/v1/types.ts";
import { type FieldError, forbidden, invalid, notSupported } from "../../../../apimachinery/field/errors.ts";
import { asRecord, asString } from "../../core/keys.ts";

/** The only coordinated leader election strategy Kubernetes knows. */
export const LEASE_STRATEGIES = ["OldestEmulationVersion"];

export function validateLease(lease: Lease): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(lease.spec) ?? {};
  if (typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (typeof spec.leaseTransitions === "number" && spec.leaseTransitions < 0) {
    errs.push(invalid("spec.leaseTransitions", spec.leaseTransitions, "must be greater than or equal to 0"));
  }
  const strategy = asString(spec.strategy);
  if (strategy && !LEASE_STRATEGIES.includes(strategy)) errs.push(notSupported("spec.strategy", strategy, LEASE_STRATEGIES));
  if (asString(spec.preferredHolder) && !strategy) {
    errs.push(forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errs;
}
