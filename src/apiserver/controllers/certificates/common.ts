// What the certificate controllers share: a key queue fed by a watch of all CSRs, and condition helpers.
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from "../../../apis/certificates/v1/types.ts";
import type { Clock } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import { KeyQueue, type SyncResult } from "../queue.ts";
import { Rewatcher } from "../rewatch.ts";
import { metaTime } from "../../../utils/time.ts";

export const CSRS = { group: "certificates.k8s.io", resource: "certificatesigningrequests" };

export interface CSRControllerOptions {
  client: InternalClient;
  clock: Clock;
  onError?: (err: unknown, name?: string) => void;
}

/** Runs sync for every CSR name that is added or changed (one at a time; failures retry). */
export class CSRLoop {
  private readonly queue: KeyQueue;
  private readonly watch: Rewatcher;

  constructor(o: CSRControllerOptions, sync: (name: string) => Promise<SyncResult>) {
    this.queue = new KeyQueue(o.clock, sync, (name, err) => o.onError?.(err, name));
    this.watch = new Rewatcher(o.client, CSRS, o.clock, (e) => e.type !== "DELETED" && this.queue.add(e.object.metadata.name!), o.onError);
  }

  start(): Promise<void> {
    return this.watch.start();
  }

  stop(): void {
    this.watch.stop();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}

/** A controller over all CSRs: start, stop and idle of its CSRLoop; subclasses say what sync does. */
export abstract class CSRController {
  private readonly loop: CSRLoop;

  constructor(protected readonly base: CSRControllerOptions) {
    this.loop = new CSRLoop(base, (name) => this.sync(name));
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): void {
    this.loop.stop();
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  abstract sync(name: string): Promise<SyncResult>;

  /** The stored CSR, or undefined when it is gone. */
  protected async csr(name: string): Promise<CertificateSigningRequest | undefined> {
    return (await this.base.client.get(CSRS, undefined, name)) as CertificateSigningRequest | undefined;
  }
}

export function condition(clock: Clock, type: string, reason: string, message: string): CertificateSigningRequestCondition {
  const now = metaTime(clock.now());
  return { type, status: "True", reason, message, lastUpdateTime: now, lastTransitionTime: now };
}

export function withCondition(csr: CertificateSigningRequest, c: CertificateSigningRequestCondition): CertificateSigningRequest {
  const next = structuredClone(csr);
  next.status = { ...next.status, conditions: [...(next.status?.conditions ?? []).filter((x) => x.type !== c.type), c] };
  return next;
}
