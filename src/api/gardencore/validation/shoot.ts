// Shoot validation for the fields operator access relies on (docs/bastion.md#shoot), a subset of
// Gardener's pkg/apis/core/validation/shoot.go with its messages where it has them. Pure.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { isDNS1123Label } from "../../../apimachinery/names/validation.ts";
import { type FieldError, Path, duplicate, forbidden, invalid, required } from "../../../apimachinery/field/errors.ts";
import { formatDuration } from "../../../utils/duration.ts";
import { parseCIDR } from "../../cidr.ts";
import { ANNOTATION_MAINTENANCE_OPERATION, isValidRotationPeriod, operationsOf, rotationPeriodMs, sshKeypairAutoRotation } from "../rotation.ts";
import { MAX_WINDOW_S, MIN_WINDOW_S, MaintenanceTimeWindow } from "../timewindow.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

const SPEC = Path.root("spec");

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** `HHMMSS+ZZZZ` (or `-ZZZZ`): a time of day with a UTC offset. */
const TIME_WINDOW = /^([01]\d|2[0-3])([0-5]\d)([0-5]\d)[+-](0\d|1[0-4])([0-5]\d)$/;

export function isMaintenanceTime(value: string): boolean {
  return TIME_WINDOW.test(value);
}

function validateWorkers(workers: unknown[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  workers.forEach((value, i) => {
    const w = recordOrEmpty(value);
    const p = path.index(i);
    const name = text(w.name);
    if (name === "") errs.push(required(p.child("name"), "worker names must not be empty"));
    else for (const msg of isDNS1123Label(name)) errs.push(invalid(p.child("name"), name, msg));
    if (name && names.has(name)) errs.push(duplicate(p.child("name"), name));
    names.add(name);
    const min = typeof w.minimum === "number" ? w.minimum : 0;
    const max = typeof w.maximum === "number" ? w.maximum : 0;
    if (min < 0) errs.push(invalid(p.child("minimum"), min, "minimum value must not be negative"));
    if (max < 0) errs.push(invalid(p.child("maximum"), max, "maximum value must not be negative"));
    if (max < min) errs.push(invalid(p.child("maximum"), max, "maximum value must not be less than minimum value"));
  });
  return errs;
}

function validateNetworking(networking: Record<string, unknown>, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ["nodes", "pods", "services"]) {
    const cidr = networking[field];
    if (cidr === undefined || cidr === null) continue;
    const parsed = typeof cidr === "string" ? parseCIDR(cidr) : undefined;
    if (!parsed) errs.push(invalid(path.child(field), cidr, "invalid CIDR address"));
  }
  return errs;
}

export function validateShoot(shoot: Pick<Shoot, "spec">): FieldError[] {
  const spec = recordOrEmpty(shoot.spec);
  const provider = recordOrEmpty(spec.provider);
  const errs: FieldError[] = [];
  if (text(provider.type) === "") errs.push(required(SPEC.child("provider", "type"), "must specify a provider type"));
  if (Array.isArray(provider.workers)) errs.push(...validateWorkers(provider.workers, SPEC.child("provider", "workers")));
  const seedName = spec.seedName;
  if (typeof seedName === "string" && seedName !== "") {
    for (const msg of isDNS1123Label(seedName)) errs.push(invalid(SPEC.child("seedName"), seedName, msg));
  }
  errs.push(...validateMaintenance(spec, Array.isArray(provider.workers) && provider.workers.length > 0));
  if (!(Array.isArray(provider.workers) && provider.workers.length > 0) && provider.workersSettings !== undefined) {
    errs.push(forbidden(SPEC.child("provider", "workersSettings"), "this field should not be set for workerless Shoot clusters"));
  }
  errs.push(...validateNetworking(recordOrEmpty(spec.networking), SPEC.child("networking")));
  return errs;
}

const MAINTENANCE = SPEC.child("maintenance");

/** Time window (format, 30m..6h) and the SSH key pair's automatic rotation period (0 or 30m..90d). */
function validateMaintenance(spec: Record<string, unknown>, hasWorkers: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const window = recordOrEmpty(recordOrEmpty(spec.maintenance).timeWindow);
  let formatOK = true;
  for (const field of ["begin", "end"]) {
    const v = window[field];
    if (v !== undefined && !(typeof v === "string" && isMaintenanceTime(v))) {
      formatOK = false;
      errs.push(invalid(MAINTENANCE.child("timeWindow", field), v, "must be in the format HHMMSS+ZZZZ"));
    }
  }
  if (formatOK && typeof window.begin === "string" && typeof window.end === "string") {
    const seconds = MaintenanceTimeWindow.parse(window.begin, window.end).durationSeconds();
    if (seconds < MIN_WINDOW_S) errs.push(invalid(MAINTENANCE.child("timeWindow", "end"), window.end, `time window must not be smaller than ${formatDuration(MIN_WINDOW_S * 1000)}`));
    if (seconds > MAX_WINDOW_S) errs.push(invalid(MAINTENANCE.child("timeWindow", "end"), window.end, `time window must not be greater than ${formatDuration(MAX_WINDOW_S * 1000)}`));
  }
  const sshKeypair = sshKeypairAutoRotation({ spec });
  const path = MAINTENANCE.child("autoRotation", "credentials", "sshKeypair");
  if (sshKeypair && !hasWorkers) {
    errs.push(forbidden(path, "this field should not be set for workerless Shoot cluster"));
  } else if (sshKeypair && sshKeypair.rotationPeriod !== undefined) {
    const ms = rotationPeriodMs({ spec });
    if (ms === undefined || !isValidRotationPeriod(ms)) {
      errs.push(invalid(path.child("rotationPeriod"), sshKeypair.rotationPeriod, "value must be either 0 to disable rotation or between 30m and 90d"));
    }
  }
  return errs;
}

/** The same operation in `gardener.cloud/operation` and `maintenance.gardener.cloud/operation` is rejected. */
export function validateShootOperations(meta: { annotations?: Record<string, string> }): FieldError[] {
  const now = operationsOf({ metadata: meta });
  const later = operationsOf({ metadata: meta }, ANNOTATION_MAINTENANCE_OPERATION);
  if (now.some((op) => later.includes(op))) {
    return [forbidden(Path.root("metadata").child("annotations"), "annotations gardener.cloud/operation and maintenance.gardener.cloud/operation must not have any equal operations")];
  }
  return [];
}
