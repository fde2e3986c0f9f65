// Secret validation (pkg/apis/core/validation ValidateSecret, ValidateSecretUpdate). Base64
// syntax of `data` values is checked by the schema (format: byte).
import {
  SECRET_TYPE_BASIC_AUTH,
  SECRET_TYPE_DOCKER_CONFIG_JSON,
  SECRET_TYPE_DOCKERCFG,
  SECRET_TYPE_SERVICE_ACCOUNT_TOKEN,
  SECRET_TYPE_SSH_AUTH,
  SECRET_TYPE_TLS,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
  type Secret,
} from "../../../../apis/core/v1/types.ts";
import { type FieldError, forbidden, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { asRecord, base64Size, isConfigMapKey, sameMap } from "../keys.ts";

/** Secrets and ConfigMaps hold at most 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;
export const REDACTED = "<secret contents redacted>";
export const IMMUTABLE_DETAIL = "field is immutable when `immutable` is set";

function decodeJSON(b64: unknown): string | undefined {
  if (typeof b64 !== "string") return undefined;
  try {
    JSON.parse(Buffer.from(b64, "base64").toString("utf8"));
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function validateSecret(secret: Secret): FieldError[] {
  const errs: FieldError[] = [];
  const data = asRecord(secret.data) ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, msg));
    total += base64Size(value);
  }
  if (total > MAX_SECRET_SIZE) errs.push({ type: "FieldValueTooLong", field: "data", detail: `must have at most ${MAX_SECRET_SIZE} bytes` });

  const has = (k: string) => Object.hasOwn(data, k);
  switch (secret.type) {
    case SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
      if (!secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION]) {
        errs.push(required(`metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]`));
      }
      break;
    case SECRET_TYPE_DOCKERCFG:
    case SECRET_TYPE_DOCKER_CONFIG_JSON: {
      const key = secret.type === SECRET_TYPE_DOCKERCFG ? ".dockercfg" : ".dockerconfigjson";
      if (!has(key)) {
        errs.push(required(`data[${key}]`));
        break;
      }
      const problem = decodeJSON(data[key]);
      if (problem) errs.push(invalid(`data[${key}]`, REDACTED, problem));
      break;
    }
    case SECRET_TYPE_BASIC_AUTH:
      // Either may be empty, but one of the keys must be there.
      if (!has("username") && !has("password")) errs.push(required("data[username]"), required("data[password]"));
      break;
    case SECRET_TYPE_SSH_AUTH:
      if (base64Size(data["ssh-privatekey"]) === 0) errs.push(required("data[ssh-privatekey]"));
      break;
    case SECRET_TYPE_TLS:
      if (!has("tls.crt")) errs.push(required("data[tls.crt]"));
      if (!has("tls.key")) errs.push(required("data[tls.key]"));
      break;
  }
  return errs;
}

export function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  const errs: FieldError[] = [];
  if ((secret.type ?? "") !== (old.type ?? "")) errs.push(invalid("type", secret.type, "field is immutable"));
  if (old.immutable === true) {
    if (secret.immutable !== true) errs.push(forbidden("immutable", IMMUTABLE_DETAIL));
    if (!sameMap(secret.data, old.data)) errs.push(forbidden("data", IMMUTABLE_DETAIL));
  }
  return [...errs, ...validateSecret(secret)];
}
