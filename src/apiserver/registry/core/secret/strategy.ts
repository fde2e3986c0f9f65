// Secret strategy: `stringData` is write-only convenience, merged into `data` (base64-encoded,
// overriding keys of the same name) on every write and never stored; `type` defaults to Opaque.
import { SECRET_TYPE_OPAQUE, type Secret } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { validateSecret, validateSecretUpdate } from "./validation.ts";

/** Applies the v1 -> internal conversion and defaults Kubernetes runs on every decoded Secret. */
export function normalizeSecret(secret: Secret): void {
  const stringData = asRecord(secret.stringData);
  if (stringData && Object.keys(stringData).length) {
    const data: Record<string, unknown> = { ...(asRecord(secret.data) ?? {}) };
    for (const [k, v] of Object.entries(stringData)) {
      if (typeof v === "string") data[k] = Buffer.from(v, "utf8").toString("base64");
    }
    secret.data = data as Record<string, string>;
  }
  delete secret.stringData;
  if (!secret.type) secret.type = SECRET_TYPE_OPAQUE;
}

export const secretStrategy: Strategy<Secret> = {
  prepareForCreate: (_ctx, secret) => normalizeSecret(secret),
  prepareForUpdate: (_ctx, secret) => normalizeSecret(secret),
  validate: (_ctx, secret) => validateSecret(secret),
  validateUpdate: (_ctx, secret, old) => validateSecretUpdate(secret, old),
};
