// The CSR signer (kube-controller-manager's csrsigning for the kubelet signers): an Approved, not
// Failed request of kubernetes.io/kube-apiserver-client-kubelet or kubernetes.io/kubelet-serving
// without a certificate is checked against what its signer issues (else it gets a Failed condition,
// reason SignerValidationFailure) and signed with the cluster CA, for spec.expirationSeconds
// bounded to [10 minutes, the maximum duration] (the maximum when unset).
import { CSRParseError, hasTrueCondition, kubeletClientProblem, kubeletServingProblem, parseCSRObject } from "../../../api/certificates/csr.ts";
import { SIGNER_KUBELET_CLIENT, SIGNER_KUBELET_SERVING } from "../../../apis/certificates/v1/types.ts";
import type { CertificateAuthority } from "../../certs/issue.ts";
import { signCSR } from "../../certs/sign.ts";
import type { SyncResult } from "../queue.ts";
import { CSRController, CSRS, type CSRControllerOptions, condition, withCondition } from "./common.ts";

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 60 * 60 * 1000;
const MIN_DURATION_MS = 10 * 60 * 1000;

export interface SignerOptions extends CSRControllerOptions {
  ca: CertificateAuthority;
  maxDurationMs?: number;
}

/** The validity of an issued certificate: the requested one, bounded to [10 minutes, max]. */
export function signingDurationMs(maxMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return maxMs;
  return Math.min(maxMs, Math.max(MIN_DURATION_MS, expirationSeconds * 1000));
}

export class CSRSigner extends CSRController<SignerOptions> {
  async sync(name: string): Promise<SyncResult> {
    const csr = await this.csr(name);
    if (!csr || csr.status?.certificate || !hasTrueCondition(csr, "Approved") || hasTrueCondition(csr, "Failed")) return;
    const signer = csr.spec?.signerName;
    if (signer !== SIGNER_KUBELET_CLIENT && signer !== SIGNER_KUBELET_SERVING) return;
    const usages = csr.spec.usages ?? [];
    let problem: string | undefined;
    let req;
    try {
      req = parseCSRObject(csr);
      problem = signer === SIGNER_KUBELET_CLIENT ? kubeletClientProblem(req, usages) : kubeletServingProblem(req, usages);
    } catch (err) {
      if (!(err instanceof CSRParseError)) throw err;
      problem = err.message;
    }
    if (problem || !req) {
      await this.opts.client.update(CSRS, withCondition(csr, condition(this.opts.clock, "Failed", "SignerValidationFailure", problem ?? "invalid request")), "status");
      return;
    }
    const durationMs = signingDurationMs(this.opts.maxDurationMs ?? DEFAULT_SIGNING_DURATION_MS, csr.spec.expirationSeconds);
    const pem = await signCSR(this.opts.ca, req, { usages, durationMs, now: this.opts.clock.now() });
    const next = structuredClone(csr);
    next.status = { ...next.status, certificate: Buffer.from(pem).toString("base64") };
    await this.opts.client.update(CSRS, next, "status");
  }
}
