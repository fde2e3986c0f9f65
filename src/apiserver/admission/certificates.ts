// Admission of CertificateSigningRequests (plugin/pkg/admission/certificates/{signing,
// subjectrestriction}); approval is checked by the approval subresource itself
// (registry/certificates/csr/approval.ts):
// - CertificateSigning: a /status write that sets or changes status.certificate needs `sign` on the
//   request's signer (`signers`, by name or `<domain>/*`);
// - CertificateSubjectRestriction: a request for the kube-apiserver-client signer may not ask for
//   the system:masters group.
import { CSRParseError, parseCSRObject } from "../../api/certificates/csr.ts";
import { type CertificateSigningRequest, SIGNER_APISERVER_CLIENT } from "../../apis/certificates/v1/types.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import type { Authorizer } from "../authorization/types.ts";
import { authorizedForSigner } from "../registry/certificates/csr/approval.ts";
import { GROUP_MASTERS } from "../authentication/types.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";

const GR = { group: "certificates.k8s.io", resource: "certificatesigningrequests" };

function isCSR(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === GR.group && attrs.resource.plural === GR.resource;
}

export class CertificateSigning implements AdmissionPlugin {
  readonly name = "CertificateSigning";

  constructor(private readonly authorizer: () => Authorizer) {}

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isCSR(attrs) || attrs.operation !== "UPDATE" || attrs.subresource !== "status") return;
    return this.validateSigning(attrs);
  }

  private async validateSigning(attrs: AdmissionAttributes): Promise<void> {
    const csr = attrs.object as CertificateSigningRequest | undefined;
    const old = attrs.oldObject as CertificateSigningRequest | undefined;
    if (!csr || (csr.status?.certificate ?? "") === (old?.status?.certificate ?? "")) return;
    const signer = old?.spec?.signerName ?? csr.spec?.signerName ?? "";
    if (!(await authorizedForSigner(this.authorizer(), attrs.user, "sign", signer))) {
      throw newForbidden(GR, attrs.name, `user not permitted to sign requests with signerName "${signer}"`);
    }
  }
}

export class CertificateSubjectRestriction implements AdmissionPlugin {
  readonly name = "CertificateSubjectRestriction";

  validate(attrs: AdmissionAttributes): void {
    if (!isCSR(attrs) || attrs.operation !== "CREATE" || attrs.subresource !== "") return;
    const csr = attrs.object as CertificateSigningRequest | undefined;
    if (csr?.spec?.signerName !== SIGNER_APISERVER_CLIENT) return;
    let organizations: string[];
    try {
      organizations = parseCSRObject(csr).organizations;
    } catch (err) {
      // Validation reports the unparseable request (422).
      if (err instanceof CSRParseError) return;
      throw err;
    }
    if (organizations.includes(GROUP_MASTERS)) {
      throw newForbidden(GR, attrs.name, `use of ${SIGNER_APISERVER_CLIENT} signer with ${GROUP_MASTERS} group is not allowed`);
    }
  }
}
