// The bootstrap token cleaner (kube-controller-manager's tokencleaner): deletes the bootstrap token
// Secrets of kube-system once their `expiration` passed, each at its expiration time of the
// injected clock (with a UID precondition, so a re-created Secret of the same name survives).
import { isConflict, isNotFound } from "../../apimachinery/errors.ts";
import type { Secret } from "../../apis/core/v1/types.ts";
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, expirationOf } from "../../api/bootstraptoken/token.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { SECRETS } from "../registry/core/resources.ts";

export interface TokenCleanerOptions extends KeyControllerOptions {
  onDeleted?: (name: string) => void;
}

export class TokenCleaner extends KeyController<TokenCleanerOptions> {
  constructor(opts: TokenCleanerOptions) {
    super(opts);
    this.watch(SECRETS, (e) => {
      const s = e.object as Secret;
      if (e.type !== "DELETED" && s.metadata.namespace === BOOTSTRAP_TOKEN_NAMESPACE && s.type === BOOTSTRAP_TOKEN_SECRET_TYPE) this.queue.add(s.metadata.name!);
    });
  }

  async sync(name: string): Promise<SyncResult> {
    const secret = (await this.opts.client.get(SECRETS, BOOTSTRAP_TOKEN_NAMESPACE, name)) as Secret | undefined;
    if (!secret || secret.metadata.deletionTimestamp || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return;
    const exp = expirationOf(secret);
    if (exp === undefined) return;
    const left = Number.isNaN(exp) ? 0 : exp - this.opts.clock.nowMs();
    if (left > 0) return left;
    try {
      await this.opts.client.delete(SECRETS, BOOTSTRAP_TOKEN_NAMESPACE, name, { preconditions: { uid: secret.metadata.uid } });
      this.opts.onDeleted?.(name);
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
}
