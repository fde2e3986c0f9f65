// kubectl get csr: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION
// (pkg/printers/internalversion printCertificateSigningRequest).
import { csrConditionText } from "../../../../api/certificates/csr.ts";
import type { CertificateSigningRequest } from "../../../../apis/certificates/v1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { humanDuration } from "../../core/age.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";

export const csrTable: TableConvertor = {
  columns: [
    ageColumn(),
    column("SignerName", "string", "Name of the signer the CSR is requested from."),
    column("Requestor", "string", "Name of the user that created the CSR."),
    column("RequestedDuration", "string", "The requested duration of validity of the issued certificate."),
    column("Condition", "string", "The state of the CSR: Approved, Denied or Pending, then Failed and Issued."),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const csr = obj as CertificateSigningRequest;
    const seconds = csr.spec?.expirationSeconds;
    return [
      ageCell(obj, now),
      csr.spec?.signerName ?? "",
      csr.spec?.username ?? "",
      typeof seconds === "number" ? humanDuration(seconds * 1000) : "<none>",
      csrConditionText(csr),
    ];
  },
};
