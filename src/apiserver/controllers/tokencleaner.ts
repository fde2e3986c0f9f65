// The bootstrap token cleaner (kube-controller-manager's tokencleaner): deletes the bootstrap token
// Secrets of kube-system once their `expiration` passed, each at its expiration time of the
// injected clock (with a UID precondition, so a re-created Secret of the same name survives).
import { isConflict, isNotFound } from "../../apimachinery/errors.ts";
import type { Secret } from "../../apis/core/v1/types.ts";
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, expirationOf } from "../../api/bootstraptoken/token.ts";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { KeyQueue, type SyncResult } from "./queue.ts";
import { Rewatcher } from "./rewatch.ts";

const SECRETS = { group: "", resource: "secrets" };

export interface TokenCleanerOptions {
  client: InternalClient;
  clock: Clock;
  onError?: (err: unknown, name?: string) => void;
  onDeleted?: (name: string) => void;
}

export class TokenCleaner {
  private readonly queue: KeyQueue;
  private readonly watch: Rewatcher;

  constructor(private readonly opts: TokenCleanerOptions) {
    this.queue = new KeyQueue(opts.clock, (name) => this.sync(name), (name, err) => opts.onError?.(err, name));
    this.watch = new Rewatcher(opts.client, SECRETS, opts.clock, (e) => {
      const s = e.object as Secret;
      if (e.type !== "DELETED" && s.metadata.namespace === BOOTSTRAP_TOKEN_NAMESPACE && s.type === BOOTSTRAP_TOKEN_SECRET_TYPE) this.queue.add(s.metadata.name!);
    }, opts.onError);
  }

  async start(): Promise<void> {
    await this.watch.start();
  }

  stop(): void {
    this.watch.stop();
    this.queue.stop();
  }

  /** Resolves when no Secret is being processed (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
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
