// Reads and writes of the key pair Secrets (docs/maintenance-and-rotation.md#key-pair-secrets): the seed secrets in the
// control-plane namespace and their garden copies in the project namespace.
import { unlessNotFound } from "../../../client/helpers.ts";
import { API_VERSION as CORE_API_VERSION, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { OwnerReference } from "../../../apis/meta/v1/types.ts";
import { LABEL_ROLE, ROLE_SSH_KEYPAIR } from "../../../api/gardencore/osc.ts";
import { type Secret, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import { type KeyPair, keyPairData } from "./keypair.ts";

export const SECRET_CURRENT = "ssh-keypair";
export const SECRET_OLD = "ssh-keypair.old";
export const LABEL_NAME = "name";
export const LABEL_MANAGER_IDENTITY = "manager-identity";
export const LABEL_LAST_ROTATION_INITIATION_TIME = "last-rotation-initiation-time";

/** `<shoot>.ssh-keypair` / `<shoot>.ssh-keypair.old`. */
export function gardenCopyName(shoot: string, seedSecret: string): string {
  return `${shoot}.${seedSecret}`;
}

export function getOrUndefined(client: Client, key: ObjectKey, signal: AbortSignal): Promise<Secret | undefined> {
  return unlessNotFound(client.get(Secrets, key, { signal }));
}

export async function deleteIgnoringNotFound(client: Client, key: ObjectKey, signal: AbortSignal): Promise<boolean> {
  return (await unlessNotFound(client.delete(Secrets, key, { signal }).then(() => true))) ?? false;
}

/** Unix seconds of an RFC 3339 time, or "" when unset (the `last-rotation-initiation-time` label value). */
export function unixSecondsLabel(time: string | undefined): string {
  if (!time) return "";
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? "" : String(Math.floor(ms / 1000));
}

/** The seed Secret holding a key pair, as docs/maintenance-and-rotation.md#key-pair-secrets writes it. */
export function seedSecret(namespace: string, name: string, pair: KeyPair, lastInitiation: string): Secret {
  return {
    metadata: {
      namespace,
      name,
      labels: { [LABEL_NAME]: name, [LABEL_MANAGER_IDENTITY]: "gardenlet", [LABEL_LAST_ROTATION_INITIATION_TIME]: lastInitiation },
    },
    type: "Opaque",
    data: keyPairData(pair),
  };
}

function ownerReference(shoot: Shoot): OwnerReference {
  return { apiVersion: CORE_API_VERSION, kind: "Shoot", name: shoot.metadata.name ?? "", uid: shoot.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Creates or updates the garden copy of a seed secret (docs/maintenance-and-rotation.md#key-pair-secrets): labels exactly the role, no
 * annotations, Opaque, the seed data, a controller reference to the Shoot. Unchanged: no write.
 */
export async function writeGardenCopy(garden: Client, shoot: Shoot, name: string, data: Record<string, string>, signal: AbortSignal): Promise<"created" | "updated" | "unchanged"> {
  const desired: Secret = {
    metadata: { namespace: shoot.metadata.namespace, name, labels: { [LABEL_ROLE]: ROLE_SSH_KEYPAIR }, ownerReferences: [ownerReference(shoot)] },
    type: "Opaque",
    data,
  };
  const existing = await getOrUndefined(garden, { namespace: shoot.metadata.namespace, name }, signal);
  if (!existing) {
    await garden.create(Secrets, desired, { signal });
    return "created";
  }
  const same =
    sameJSON(existing.metadata.labels, desired.metadata.labels) &&
    Object.keys(existing.metadata.annotations ?? {}).length === 0 &&
    sameJSON(existing.metadata.ownerReferences, desired.metadata.ownerReferences) &&
    existing.type === "Opaque" &&
    sameJSON(existing.data, data);
  if (same) return "unchanged";
  if ((existing.type ?? "Opaque") !== "Opaque") {
    // The type is immutable: replace the Secret.
    await deleteIgnoringNotFound(garden, { namespace: shoot.metadata.namespace, name }, signal);
    await garden.create(Secrets, desired, { signal });
    return "created";
  }
  // A PUT replaces labels and annotations wholesale; the resourceVersion guards against lost updates.
  const { annotations: _dropped, ...meta } = existing.metadata;
  await garden.update(Secrets, { ...existing, metadata: { ...meta, labels: desired.metadata.labels, ownerReferences: desired.metadata.ownerReferences }, type: "Opaque", data }, { signal });
  return "updated";
}
