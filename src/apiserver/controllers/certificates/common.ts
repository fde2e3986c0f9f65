// What the certificate controllers share: a KeyController fed by a watch of all CSRs, and condition helpers.
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from "../../../apis/certificates/v1/types.ts";
import type { Clock } from "../../../utils/clock.ts";
import { KeyController, type KeyControllerOptions } from "../keycontroller.ts";
import { metaTime } from "../../../utils/time.ts";

export const CSRS = { group: "certificates.k8s.io", resource: "certificatesigningrequests" };

export type CSRControllerOptions = KeyControllerOptions;

/** A controller over all CSRs, keyed by name (deletions are not queued); subclasses say what sync does. */
export abstract class CSRController<O extends CSRControllerOptions = CSRControllerOptions> extends KeyController<O> {
  constructor(opts: O) {
    super(opts);
    this.watch(CSRS, (e) => e.type !== "DELETED" && this.queue.add(e.object.metadata.name!));
  }

  /** The stored CSR, or undefined when it is gone. */
  protected async csr(name: string): Promise<CertificateSigningRequest | undefined> {
    return (await this.opts.client.get(CSRS, undefined, name)) as CertificateSigningRequest | undefined;
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
