// Pod validation (pkg/apis/core/validation ValidatePodCreate, ValidatePodUpdate,
// ValidatePodStatusUpdate): the spec, the few fields an update may change, and status.
import { isIP } from "node:net";
import type { Pod, PodSpec } from "../../../../apis/core/v1/pod.ts";
import { type FieldError, Path, duplicate, forbidden, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Subdomain } from "../../../../apimachinery/names/validation.ts";
import { semanticEqual } from "../../../../api/equality.ts";
import { asArray, asRecord, asString } from "../keys.ts";
import { validateContainers } from "./validation-container.ts";
import { validateVolumes } from "./validation-volume.ts";

const SPEC = Path.root("spec");
const MAX_INT32 = 2147483647;

export const UPDATE_FORBIDDEN_MESSAGE =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function dnsSubdomain(path: Path, v: unknown): FieldError[] {
  const s = asString(v);
  return s ? isDNS1123Subdomain(s).map((m) => invalid(path, s, m)) : [];
}

export function validatePodSpec(spec: PodSpec | undefined): FieldError[] {
  const s = asRecord(spec);
  if (!s) return [required(SPEC)];
  const errs: FieldError[] = [];
  const volumes = validateVolumes(asArray(s.volumes), SPEC.child("volumes"));
  errs.push(...volumes.errs);
  const names = new Set<string>();
  const portNames = new Set<string>();
  const hostNetwork = s.hostNetwork === true;
  const base = { volumes: volumes.names, hostNetwork, names, portNames };
  errs.push(...validateContainers(asArray(s.initContainers), SPEC.child("initContainers"), { ...base, init: true }));
  const containers = asArray(s.containers);
  if (containers.length === 0) errs.push(required(SPEC.child("containers")));
  errs.push(...validateContainers(containers, SPEC.child("containers"), { ...base, init: false }));
  const ads = s.activeDeadlineSeconds;
  if (typeof ads === "number" && (ads < 1 || ads > MAX_INT32)) {
    errs.push(invalid(SPEC.child("activeDeadlineSeconds"), ads, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  errs.push(...dnsSubdomain(SPEC.child("serviceAccountName"), s.serviceAccountName));
  errs.push(...dnsSubdomain(SPEC.child("nodeName"), s.nodeName));
  errs.push(...validateTolerations(asArray(s.tolerations)));
  const gates = new Set<string>();
  asArray(s.schedulingGates).forEach((g, i) => {
    const name = asString(asRecord(g)?.name);
    if (gates.has(name)) errs.push(duplicate(SPEC.child("schedulingGates").index(i), name));
    gates.add(name);
  });
  return errs;
}

function validateTolerations(tolerations: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((x, i) => {
    const t = asRecord(x);
    if (!t) return;
    const p = SPEC.child("tolerations").index(i);
    const op = asString(t.operator) || "Equal";
    if (op !== "Equal" && op !== "Exists") errs.push({ type: "FieldValueNotSupported", field: `${p}.operator`, value: op, detail: 'supported values: "Equal", "Exists"' });
    if (op === "Exists" && asString(t.value)) errs.push(invalid(p.child("operator"), t.value, "value must be empty when `operator` is 'Exists'"));
    if (!asString(t.key) && op !== "Exists") errs.push(invalid(p.child("operator"), op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    const effect = asString(t.effect);
    if (effect && !["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(effect)) {
      errs.push({ type: "FieldValueNotSupported", field: `${p}.effect`, value: effect, detail: 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' });
    }
    if (t.tolerationSeconds !== undefined && effect !== "NoExecute") {
      errs.push(invalid(p.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
  });
  return errs;
}

export function validatePod(pod: Pod): FieldError[] {
  return validatePodSpec(pod.spec);
}

/** The spec an update may produce: the new one with every changeable field taken from the old. */
function withMutableFieldsOf(spec: PodSpec, from: PodSpec): PodSpec {
  const out = structuredClone(spec);
  for (const list of ["containers", "initContainers"] as const) {
    const olds = from[list] ?? [];
    out[list]?.forEach((c, i) => {
      if (olds[i]) c.image = olds[i]!.image;
    });
  }
  for (const k of ["activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"] as const) {
    if (from[k] === undefined) delete out[k];
    else (out as Record<string, unknown>)[k] = from[k];
  }
  return out;
}

export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const spec = pod.spec;
  const oldSpec = old.spec;
  if (!spec || !oldSpec) return validatePod(pod);
  const errs: FieldError[] = [];
  for (const list of ["containers", "initContainers"] as const) {
    const now = asArray(spec[list]);
    if (now.length !== asArray(oldSpec[list]).length) errs.push(forbidden(SPEC.child(list), "pod updates may not add or remove containers"));
    now.forEach((c, i) => {
      if (!asString(asRecord(c)?.image)) errs.push(required(SPEC.child(list).index(i).child("image")));
    });
  }
  if (errs.length) return errs;
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (oldAds !== undefined && ads === undefined) errs.push(invalid(SPEC.child("activeDeadlineSeconds"), null, "must not update from a positive integer to nil value"));
  else if (oldAds !== undefined && typeof ads === "number" && ads > oldAds) {
    errs.push(invalid(SPEC.child("activeDeadlineSeconds"), ads, "must be less than or equal to previous value"));
  }
  const oldTolerations = asArray(oldSpec.tolerations);
  const tolerations = asArray(spec.tolerations);
  if (!oldTolerations.every((t) => tolerations.some((n) => sameTolerationExceptSeconds(t, n)))) {
    errs.push(forbidden(SPEC.child("tolerations"), "existing toleration can not be modified except its tolerationSeconds"));
  }
  if (!semanticEqual(withMutableFieldsOf(spec, oldSpec), oldSpec)) errs.push(forbidden(SPEC, UPDATE_FORBIDDEN_MESSAGE));
  return [...errs, ...validatePodSpec(spec)];
}

function sameTolerationExceptSeconds(a: unknown, b: unknown): boolean {
  const x = asRecord(a) ?? {};
  const y = asRecord(b) ?? {};
  return ["key", "operator", "value", "effect"].every((k) => (x[k] ?? "") === (y[k] ?? ""));
}

const TERMINAL = new Set(["Succeeded", "Failed"]);

export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const status = asRecord(pod.status) ?? {};
  const oldPhase = asString(asRecord(old.status)?.phase);
  const phase = asString(status.phase);
  if (TERMINAL.has(oldPhase) && phase !== oldPhase) {
    errs.push(forbidden(Path.root("status").child("phase"), `cannot transition from terminal phase ${oldPhase} to ${phase}`));
  }
  for (const [list, single] of [["podIPs", "podIP"], ["hostIPs", "hostIP"]] as const) {
    const ips = asArray(status[list]).map((x) => asString(asRecord(x)?.ip));
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      const p = Path.root("status").child(list).index(i);
      if (isIP(ip) === 0) errs.push(invalid(p, ip, "must be a valid IP address"));
      if (seen.has(ip)) errs.push(duplicate(p, ip));
      seen.add(ip);
    });
    const one = asString(status[single]);
    if (one && ips.length && ips[0] !== one) errs.push(invalid(Path.root("status").child(list).index(0).child("ip"), ips[0], `must be equal to ${single}`));
    if (one && isIP(one) === 0) errs.push(invalid(Path.root("status").child(single), one, "must be a valid IP address"));
  }
  return errs;
}
