// ConfigMap validation (pkg/apis/core/validation ValidateConfigMap, ValidateConfigMapUpdate).
import type { ConfigMap } from "../../../../apis/core/v1/types.ts";
import { type FieldError, forbidden, invalid } from "../../../../apimachinery/field/errors.ts";
import { asRecord, base64Size, isConfigMapKey, sameMap } from "../keys.ts";
import { IMMUTABLE_DETAIL, MAX_SECRET_SIZE } from "../secret/validation.ts";

export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  const data = asRecord(cm.data) ?? {};
  const binary = asRecord(cm.binaryData) ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, msg));
    if (Object.hasOwn(binary, key)) errs.push(invalid(`data[${key}]`, key, "duplicate of key present in binaryData"));
    total += typeof value === "string" ? Buffer.byteLength(value, "utf8") : 0;
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const msg of isConfigMapKey(key)) errs.push(invalid(`binaryData[${key}]`, key, msg));
    if (Object.hasOwn(data, key)) errs.push(invalid(`binaryData[${key}]`, key, "duplicate of key present in data"));
    total += base64Size(value);
  }
  // The error refers to the whole object, hence the empty field path (as in Kubernetes).
  if (total > MAX_SECRET_SIZE) errs.push({ type: "FieldValueTooLong", field: "", detail: `must have at most ${MAX_SECRET_SIZE} bytes` });
  return errs;
}

export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(forbidden("immutable", IMMUTABLE_DETAIL));
    if (!sameMap(cm.data, old.data)) errs.push(forbidden("data", IMMUTABLE_DETAIL));
    if (!sameMap(cm.binaryData, old.binaryData)) errs.push(forbidden("binaryData", IMMUTABLE_DETAIL));
  }
  return [...errs, ...validateConfigMap(cm)];
}
