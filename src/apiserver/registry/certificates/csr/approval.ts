// certificatesigningrequests/approval: GET returns the request; PUT sets its Approved/Denied
// conditions and nothing else (a second store over the same storage with csrApprovalStrategy, as
// kube-apiserver's approval REST). Approving or denying needs `approve` on the request's signer
// (`signers` in certificates.k8s.io, by signerName or `<domain>/*`), as the CertificateApproval
// admission plugin checks; the signerName is read from the stored request (it is immutable).
import { newBadRequest, newForbidden, newMethodNotSupported, newNotFound } from "../../../../apimachinery/errors.ts";
import type { CertificateSigningRequest } from "../../../../apis/certificates/v1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { UserInfo } from "../../../authentication/types.ts";
import type { Authorizer } from "../../../authorization/types.ts";
import type { ObjectStore, WriteOptions } from "../../generic/interface.ts";
import type { ResourceDefinition, SubresourceHandler } from "../../types.ts";
import { csrApprovalStrategy } from "./strategy.ts";

const GR = { group: "certificates.k8s.io", resource: "certificatesigningrequests" };

/** Whether user may `verb` (approve, sign) requests of signerName: by exact name or the `<domain>/*` wildcard. */
export async function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const names = [signerName];
  const slash = signerName.indexOf("/");
  if (slash > 0) names.push(`${signerName.slice(0, slash)}/*`);
  for (const name of names) {
    const r = await authorizer.authorize({ user, verb, resourceRequest: true, apiGroup: GR.group, apiVersion: "*", resource: "signers", name });
    if (r.decision === "allow") return true;
  }
  return false;
}

export function csrApprovalSubresource(mainStore: ObjectStore, approvalStore: ObjectStore, authorizer: () => Authorizer): SubresourceHandler {
  return {
    verbs: ["get", "update"],
    responseKind: { group: GR.group, version: "v1", kind: "CertificateSigningRequest" },
    async handle(req) {
      if (req.verb === "get") return { status: 200, body: await mainStore.get(req.ctx, req.name) };
      if (req.verb !== "update") throw newMethodNotSupported({ ...GR, resource: `${GR.resource}/approval` }, req.verb);
      if (typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) {
        throw newBadRequest("the body of a certificatesigningrequests/approval request must be a CertificateSigningRequest");
      }
      const stored = (await mainStore.get(req.ctx, req.name).catch(() => undefined)) as CertificateSigningRequest | undefined;
      if (!stored) throw newNotFound(GR, req.name);
      const signer = stored.spec?.signerName ?? "";
      if (!(await authorizedForSigner(authorizer(), req.ctx.user, "approve", signer))) {
        throw newForbidden(GR, req.name, `user not permitted to approve requests with signerName "${signer}"`);
      }
      const options: WriteOptions = { dryRun: req.ctx.dryRun };
      if (req.query.getAll("dryRun").includes("All")) options.dryRun = true;
      const fv = req.query.get("fieldValidation");
      if (fv === "Ignore" || fv === "Warn" || fv === "Strict") options.fieldValidation = fv;
      const res = await approvalStore.update(req.ctx, req.name, req.body as KubeObject, options);
      return { status: 200, body: res.object };
    },
  };
}

/** The CSR definition with its approval subresource; makeStore builds stores over the same storage. */
export function withCSRApproval(def: ResourceDefinition, makeStore: (def: ResourceDefinition) => ObjectStore, authorizer: () => Authorizer): ResourceDefinition {
  // hasStatus false: the approval store must not reset the status it is there to change.
  const approvalDef: ResourceDefinition = { ...def, hasStatus: false, strategy: csrApprovalStrategy as ResourceDefinition["strategy"] };
  return { ...def, subresources: { ...def.subresources, approval: csrApprovalSubresource(makeStore(def), makeStore(approvalDef), authorizer) } };
}
