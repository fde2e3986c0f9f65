// certificates.k8s.io/v1 CertificateSigningRequest: cluster-scoped, with status and (added by
// the server, approval.ts) approval subresources.
import { validatePathSegmentName } from "../../../../apimachinery/validation/names.ts";
import type { ResourceDefinition } from "../../types.ts";
import { csrSchema } from "./schema.ts";
import { csrStrategy } from "./strategy.ts";
import { csrTable } from "./table.ts";

export const csrDefinition: ResourceDefinition = {
  group: "certificates.k8s.io",
  version: "v1",
  kind: "CertificateSigningRequest",
  listKind: "CertificateSigningRequestList",
  plural: "certificatesigningrequests",
  singular: "certificatesigningrequest",
  namespaced: false,
  shortNames: ["csr"],
  schema: csrSchema,
  hasStatus: true,
  strategy: csrStrategy as ResourceDefinition["strategy"],
  table: csrTable,
  fieldSelectors: { "spec.signerName": (o) => (o.spec as { signerName?: string } | undefined)?.signerName },
  strategicMergePatch: true,
  tracksGeneration: false,
  // As upstream: kubelets name requests node-csr-<base64url digest>.
  nameValidator: validatePathSegmentName,
};
