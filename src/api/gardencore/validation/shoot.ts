// Shoot validation for the fields operator access relies on (spec/bastion.md §3.2), a subset of
// Gardener's pkg/apis/core/validation/shoot.go with its messages where it has them. Pure.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { isDNS1123Label } from "../../../apimachinery/names/validation.ts";
import { type FieldError, Path, duplicate, invalid, required } from "../../../apimachinery/field/errors.ts";
import { parseCIDR } from "../../cidr.ts";

const SPEC = Path.root("spec");

function record(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
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
    const w = record(value);
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
  const spec = record(shoot.spec);
  const provider = record(spec.provider);
  const errs: FieldError[] = [];
  if (text(provider.type) === "") errs.push(required(SPEC.child("provider", "type"), "must specify a provider type"));
  if (Array.isArray(provider.workers)) errs.push(...validateWorkers(provider.workers, SPEC.child("provider", "workers")));
  const seedName = spec.seedName;
  if (typeof seedName === "string" && seedName !== "") {
    for (const msg of isDNS1123Label(seedName)) errs.push(invalid(SPEC.child("seedName"), seedName, msg));
  }
  const window = record(record(spec.maintenance).timeWindow);
  for (const field of ["begin", "end"]) {
    const v = window[field];
    if (v !== undefined && !(typeof v === "string" && isMaintenanceTime(v))) {
      errs.push(invalid(SPEC.child("maintenance", "timeWindow", field), v, "must be in the format HHMMSS+ZZZZ"));
    }
  }
  errs.push(...validateNetworking(record(spec.networking), SPEC.child("networking")));
  return errs;
}
