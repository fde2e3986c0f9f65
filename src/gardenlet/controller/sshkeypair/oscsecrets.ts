// The per-pool OperatingSystemConfig Secrets in the shoot's kube-system (spec/ssh-keypair-rotation.md
// docs/maintenance-and-rotation.md#node-configuration): rendered for every worker pool, written only when `osc.yaml` changed, and removed for pools
// (or machine generations) that no longer exist.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import {
  ANNOTATION_CHECKSUM_DATA_SCRIPT,
  LABEL_ROLE,
  LABEL_WORKER_POOL,
  OSC_DATA_KEY,
  OSC_NAMESPACE,
  ROLE_OSC,
  checksumOf,
  oscSecretNameOf,
  renderOSC,
} from "../../../api/gardencore/osc.ts";
import { type Secret, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { deleteIgnoringNotFound, getOrUndefined } from "./secrets.ts";

export interface PoolOSC {
  pool: string;
  secretName: string;
  /** `checksum/data-script` of the rendered `osc.yaml`. */
  checksum: string;
  secret: Secret;
}

/** The desired OSC Secret of every worker pool; `authorizedKeys` undefined renders no `gardener-user` part. */
export function desiredOSCSecrets(shoot: Shoot, authorizedKeys: string[] | undefined): PoolOSC[] {
  const yaml = renderOSC({ authorizedKeys });
  const checksum = checksumOf(yaml);
  return (shoot.spec.provider.workers ?? []).map((worker) => {
    const secretName = oscSecretNameOf(shoot, worker);
    const secret: Secret = {
      metadata: {
        namespace: OSC_NAMESPACE,
        name: secretName,
        labels: { [LABEL_ROLE]: ROLE_OSC, [LABEL_WORKER_POOL]: worker.name },
        annotations: { [ANNOTATION_CHECKSUM_DATA_SCRIPT]: checksum },
      },
      type: "Opaque",
      data: { [OSC_DATA_KEY]: Buffer.from(yaml).toString("base64") },
    };
    return { pool: worker.name, secretName, checksum, secret };
  });
}

function upToDate(existing: Secret, desired: Secret): boolean {
  const labels = desired.metadata.labels ?? {};
  const annotations = desired.metadata.annotations ?? {};
  return (
    existing.data?.[OSC_DATA_KEY] === desired.data?.[OSC_DATA_KEY] &&
    Object.entries(labels).every(([k, v]) => existing.metadata.labels?.[k] === v) &&
    Object.entries(annotations).every(([k, v]) => existing.metadata.annotations?.[k] === v)
  );
}

export interface SyncResult {
  written: string[];
  deleted: string[];
}

/**
 * Makes the shoot's OSC Secrets match `desired`; other Secrets with the OSC role are deleted. `cached`
 * (the shoot cache's OSC Secrets) only saves reads: a Secret it shows up to date is not read or
 * written (a change it has not seen yet arrives as an event, and a pass follows), any other is read
 * live before it is written, and the cache lists what may have to go.
 */
export async function syncOSCSecrets(shootClient: Client, desired: PoolOSC[], signal: AbortSignal, cached?: Secret[]): Promise<SyncResult> {
  const result: SyncResult = { written: [], deleted: [] };
  for (const { secret } of desired) {
    const key = { namespace: OSC_NAMESPACE, name: secret.metadata.name ?? "" };
    const seen = cached?.find((s) => s.metadata.name === key.name);
    if (seen && upToDate(seen, secret)) continue;
    const existing = await getOrUndefined(shootClient, key, signal);
    if (!existing) {
      await shootClient.create(Secrets, secret, { signal });
    } else if (!upToDate(existing, secret)) {
      const metadata = {
        ...existing.metadata,
        labels: { ...existing.metadata.labels, ...secret.metadata.labels },
        annotations: { ...existing.metadata.annotations, ...secret.metadata.annotations },
      };
      await shootClient.update(Secrets, { ...existing, metadata, data: secret.data }, { signal });
    } else {
      continue;
    }
    result.written.push(key.name);
  }
  const wanted = new Set(desired.map((d) => d.secretName));
  const present = cached?.filter((s) => s.metadata.labels?.[LABEL_ROLE] === ROLE_OSC) ?? (await shootClient.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: `${LABEL_ROLE}=${ROLE_OSC}`, signal })).items;
  for (const s of present) {
    const name = s.metadata.name ?? "";
    if (wanted.has(name)) continue;
    if (await deleteIgnoringNotFound(shootClient, { namespace: OSC_NAMESPACE, name }, signal)) result.deleted.push(name);
  }
  return result;
}
