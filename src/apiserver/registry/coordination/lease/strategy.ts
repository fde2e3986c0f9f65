// Lease strategy: acquireTime and renewTime are MicroTimes, stored in UTC with microseconds.
import type { Lease } from "../../../../apis/coordination/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { normalizeField } from "../../core/time.ts";
import { validateLease } from "./validation.ts";

function normalize(lease: Lease): void {
  normalizeField(lease.spec, "acquireTime", true);
  normalizeField(lease.spec, "renewTime", true);
}

export const leaseStrategy: Strategy<Lease> = {
  prepareForCreate: (_ctx, lease) => normalize(lease),
  prepareForUpdate: (_ctx, lease) => normalize(lease),
  validate: (_ctx, lease) => validateLease(lease),
  validateUpdate: (_ctx, lease) => validateLease(lease),
};
