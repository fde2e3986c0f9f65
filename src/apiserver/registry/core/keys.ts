// Keys of ConfigMap and Secret data (k8s.io/apimachinery/pkg/util/validation IsConfigMapKey),
// and tolerant readers for values that reach strategies before schema validation has run.
import { DNS1123_SUBDOMAIN_MAX_LENGTH, maxLenError, regexError } from "../../../apimachinery/names/validation.ts";
import { isRecord } from "../../../utils/guards.ts";

const configMapKeyFmt = "[-._a-zA-Z0-9]+";
const configMapKeyRe = /^[-._a-zA-Z0-9]+$/;
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

/** Problems with a ConfigMap/Secret key (empty when valid), with Kubernetes' messages. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value, "utf8") > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"));
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** The value as a string map, or undefined when it is not an object (the schema reports that). */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Decoded size in bytes of a base64 value (0 when it is not a string). */
export function base64Size(v: unknown): number {
  if (typeof v !== "string") return 0;
  const s = v.replace(/[\r\n]/g, "");
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - padding);
}

/** Maps compare equal when they hold the same entries; absent and empty are the same. */
export function sameMap(a: unknown, b: unknown): boolean {
  const ra = asRecord(a) ?? {};
  const rb = asRecord(b) ?? {};
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && ra[k] === rb[k]);
}
