// Applying the pool's OSC (docs/maintenance-and-rotation.md#the-node-agent): pick the Secret, check its
// checksum, apply the `gardener-user` part and the desired sshd state, then report the checksum on
// the Node. Every pass re-applies the `gardener-user` part (idempotent: unchanged files are not
// rewritten), which also repairs drift; sshd is only touched when its desired state changes (the
// periodic sshd check repairs its drift); a pass is scheduled again after the full resync period.
import { ANNOTATION_CHECKSUM_DATA_SCRIPT, AUTHORIZED_KEYS_FILE, LABEL_WORKER_POOL, OSC_DATA_KEY, OSC_NAMESPACE, checksumOf, fileContent, parseOSC } from "../api/gardencore/osc.ts";
import type { Node } from "../apis/core/v1/types.ts";
import { isNotFound } from "../apimachinery/errors.ts";
import { type Secret, Secrets } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import type { Cache } from "../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Result } from "../controllerruntime/reconcile.ts";
import { terminal } from "../controllerruntime/reconcile.ts";
import { applyGardenerUser } from "./gardeneruser.ts";
import { reportApplied } from "./node.ts";
import type { SshdEnsurer } from "./sshd.ts";
import type { UserManager } from "./users.ts";

export interface ApplierDeps {
  client: Client;
  cache: Cache;
  nodeName: string;
  pool: string;
  secretName: string | undefined;
  root: string;
  users: UserManager;
  sshd: SshdEnsurer;
  /** Registers the Node again (it was deleted). */
  register(signal?: AbortSignal): Promise<Node>;
  fullResyncMs: number;
}

/** The newest of the pool's OSC Secrets (or the named one); ties broken by name. */
export function pickSecret(secrets: Secret[], pool: string, name: string | undefined): Secret | undefined {
  const candidates = secrets.filter((s) => (name ? s.metadata.name === name : s.metadata.labels?.[LABEL_WORKER_POOL] === pool) && !s.metadata.deletionTimestamp);
  candidates.sort((a, b) => (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "") || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
  return candidates[0];
}

export class OSCApplier {
  /** `checksum/data-script` of the last OSC applied successfully. */
  lastApplied: string | undefined;
  /** The sshd state the last applied OSC asks for; undefined before the first apply. */
  sshdEnabled: boolean | undefined;
  /** `resourceVersion` of the last Secret version refused (checksum mismatch or malformed `osc.yaml`). */
  lastRejected: string | undefined;

  constructor(private readonly d: ApplierDeps) {}

  async reconcile(rc: ReconcileContext): Promise<Result | void> {
    const secrets = await this.d.cache.list(Secrets, { namespace: OSC_NAMESPACE });
    const secret = pickSecret(secrets, this.d.pool, this.d.secretName);
    if (!secret) {
      rc.log.info("no operating system config for this pool yet");
      return;
    }
    const yaml = Buffer.from(secret.data?.[OSC_DATA_KEY] ?? "", "base64");
    const checksum = secret.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT] ?? "";
    const secretName = secret.metadata.name ?? "";
    if (checksum !== checksumOf(yaml)) {
      this.lastRejected = secret.metadata.resourceVersion;
      // Not retried: only a new version of the Secret can fix it.
      throw terminal(new Error(`operating system config ${OSC_NAMESPACE}/${secretName}: checksum/data-script does not match ${OSC_DATA_KEY}; not applied`));
    }
    let osc;
    try {
      osc = parseOSC(yaml.toString("utf8"));
    } catch (err) {
      this.lastRejected = secret.metadata.resourceVersion;
      throw terminal(err);
    }
    const keys = fileContent(osc, AUTHORIZED_KEYS_FILE);
    const user = await applyGardenerUser(this.d.root, this.d.users, keys);
    if (user.changed) rc.log.info({ secret: secretName, sshAccess: keys !== undefined }, "gardener-user applied");
    const enabled = keys !== undefined;
    // systemctl only when the desired state changes (or on the first apply): the periodic sshd check
    // repairs drift, so a key rotation reports without waiting for it.
    if (this.sshdEnabled !== enabled) {
      await this.d.sshd.ensure(enabled);
      this.sshdEnabled = enabled;
    }
    // One merge patch, no read first: at a resync it also restores an annotation someone removed.
    await this.report(secretName, checksum, rc.signal);
    if (this.lastApplied !== checksum) rc.log.info({ secret: secretName, checksum }, "operating system config applied");
    this.lastApplied = checksum;
    return { requeueAfterMs: this.d.fullResyncMs };
  }

  /** The periodic sshd check (docs/maintenance-and-rotation.md#the-sshd-ensurer-part): the state of the last applied OSC, again. */
  async checkSshd(): Promise<void> {
    if (this.sshdEnabled === undefined) return;
    await this.d.sshd.ensure(this.sshdEnabled).catch(() => undefined);
  }

  private async report(secretName: string, checksum: string, signal: AbortSignal): Promise<void> {
    try {
      await reportApplied(this.d.client, this.d.nodeName, secretName, checksum, signal);
    } catch (err) {
      if (!(err instanceof Error && isNotFound(err.cause))) throw err;
      await this.d.register(signal);
      await reportApplied(this.d.client, this.d.nodeName, secretName, checksum, signal);
    }
  }
}
