// Node validation (pkg/apis/core/validation ValidateNode, ValidateNodeUpdate): pod CIDRs,
// taints, and the fields a node may only set once.
import { isIP } from "node:net";
import type { Node } from "../../../../apis/core/v1/types.ts";
import { type FieldError, duplicate, forbidden, invalid } from "../../../../apimachinery/field/errors.ts";
import { isQualifiedName, isValidLabelValue } from "../../../../apimachinery/names/validation.ts";
import { asArray, asRecord, asString } from "../keys.ts";

/** The IP family (4 or 6) of a CIDR, or 0 when it is not one. */
export function cidrFamily(cidr: string): 0 | 4 | 6 {
  const [ip = "", bits, ...rest] = cidr.split("/");
  if (bits === undefined || rest.length || !/^\d{1,3}$/.test(bits)) return 0;
  const family = isIP(ip);
  if (family === 0 || Number(bits) > (family === 4 ? 32 : 128)) return 0;
  return family === 4 ? 4 : 6;
}

function validatePodCIDRs(cidrs: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const families = new Map<number, number>();
  const seen = new Set<string>();
  cidrs.forEach((c, i) => {
    if (typeof c !== "string") return;
    const family = cidrFamily(c);
    if (family === 0) errs.push(invalid(`spec.podCIDRs[${i}]`, c, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
    else families.set(family, (families.get(family) ?? 0) + 1);
    if (seen.has(c)) errs.push(duplicate(`spec.podCIDRs[${i}]`, c));
    seen.add(c);
  });
  if (cidrs.length > 2 || [...families.values()].some((n) => n > 1)) {
    errs.push(invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"));
  }
  return errs;
}

function validateTaints(taints: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const taint = asRecord(t);
    if (!taint) return;
    const path = `spec.taints[${i}]`;
    const key = asString(taint.key);
    if (key) for (const msg of isQualifiedName(key)) errs.push(invalid(`${path}.key`, key, msg));
    if (typeof taint.value === "string") for (const msg of isValidLabelValue(taint.value)) errs.push(invalid(`${path}.value`, taint.value, msg));
    // The effect's values are checked by the schema's enum.
    const effect = asString(taint.effect);
    const id = `${key}\0${effect}`;
    if (seen.has(id)) errs.push(invalid(path, taint, "taints must be unique by key and effect pair"));
    seen.add(id);
  });
  return errs;
}

function validateAddresses(addresses: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  addresses.forEach((a, i) => {
    const addr = asRecord(a);
    if (!addr) return;
    const id = `${asString(addr.type)}\0${asString(addr.address)}`;
    if (seen.has(id)) errs.push(duplicate(`status.addresses[${i}]`, addr));
    seen.add(id);
  });
  return errs;
}

export function validateNode(node: Node): FieldError[] {
  const spec = asRecord(node.spec) ?? {};
  const cidrs = asArray(spec.podCIDRs);
  const errs = [...validatePodCIDRs(cidrs), ...validateTaints(asArray(spec.taints))];
  if (typeof spec.podCIDR === "string" && spec.podCIDR && cidrs.length && cidrs[0] !== spec.podCIDR) {
    errs.push(invalid("spec.podCIDR", spec.podCIDR, "must be the first element of spec.podCIDRs"));
  }
  errs.push(...validateAddresses(asArray(asRecord(node.status)?.addresses)));
  return errs;
}

export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(node.spec) ?? {};
  const oldSpec = asRecord(old.spec) ?? {};
  const oldCIDRs = asArray(oldSpec.podCIDRs);
  if (oldCIDRs.length && JSON.stringify(asArray(spec.podCIDRs)) !== JSON.stringify(oldCIDRs)) {
    errs.push(forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'));
  }
  if (asString(oldSpec.providerID) && spec.providerID !== oldSpec.providerID) {
    errs.push(forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'));
  }
  return [...errs, ...validateNode(node)];
}
