// CertificateSigningRequest strategies (pkg/registry/certificates/certificates/strategy.go):
// - create: spec.username/uid/groups/extra come from the requesting user, never from the body;
// - main-resource updates change metadata only (spec and status are kept);
// - /status keeps spec and the approval decision (Approved/Denied conditions), sets the rest;
// - /approval (approval.ts) keeps everything but the conditions.
// Condition timestamps are filled in from the request's clock.
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from "../../../../apis/certificates/v1/types.ts";
import type { RequestContext, Strategy } from "../../types.ts";
import { validateCSRSpec, validateCSRUpdate, validateConditions } from "./validation.ts";
import { metaTime } from "../../../../utils/time.ts";

const APPROVAL_TYPES = new Set(["Approved", "Denied"]);

function stamp(ctx: RequestContext): string {
  return metaTime(ctx.clock.now());
}

/** lastUpdateTime defaults to now; lastTransitionTime is now for new conditions or changed status, else kept. */
export function populateConditionTimestamps(ctx: RequestContext, csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): void {
  const now = stamp(ctx);
  for (const c of csr.status?.conditions ?? []) {
    c.lastUpdateTime ||= now;
    const before = (old?.status?.conditions ?? []).find((o) => o.type === c.type);
    if (!c.lastTransitionTime) c.lastTransitionTime = before && before.status === c.status ? (before.lastTransitionTime ?? now) : now;
  }
}

function setRequester(ctx: RequestContext, csr: CertificateSigningRequest): void {
  const spec = csr.spec;
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  spec.username = ctx.user.username;
  if (ctx.user.uid) spec.uid = ctx.user.uid;
  spec.groups = [...ctx.user.groups];
  if (ctx.user.extra && Object.keys(ctx.user.extra).length > 0) spec.extra = structuredClone(ctx.user.extra);
}

export const csrStrategy: Strategy<CertificateSigningRequest> = {
  prepareForCreate(ctx, csr) {
    csr.spec ??= {} as CertificateSigningRequest["spec"];
    setRequester(ctx, csr);
    delete csr.status;
  },
  prepareForUpdate(_ctx, csr, old) {
    csr.spec = structuredClone(old.spec);
    if (old.status) csr.status = structuredClone(old.status);
    else delete csr.status;
  },
  validate: (_ctx, csr) => [...validateCSRSpec(csr), ...validateConditions(csr.status?.conditions ?? [])],
  validateUpdate: (_ctx, csr, old) => validateCSRUpdate(csr, old),
  prepareForStatusUpdate(ctx, csr, old) {
    csr.spec = structuredClone(old.spec);
    const status = (csr.status ??= {});
    const kept = (old.status?.conditions ?? []).filter((c) => APPROVAL_TYPES.has(c.type));
    const rest = (status.conditions ?? []).filter((c) => !APPROVAL_TYPES.has(c.type));
    const conditions: CertificateSigningRequestCondition[] = [...kept, ...rest];
    if (conditions.length) status.conditions = conditions;
    else delete status.conditions;
    populateConditionTimestamps(ctx, csr, old);
  },
  validateStatusUpdate: (_ctx, csr, old) => validateCSRUpdate(csr, old),
  defaultGarbageCollectionPolicy: "DeleteDependents",
};

/** The /approval update strategy: the stored object with the request's Approved/Denied conditions. */
export const csrApprovalStrategy: Strategy<CertificateSigningRequest> = {
  prepareForUpdate(ctx, csr, old) {
    const wanted = (csr.status?.conditions ?? []).filter((c) => APPROVAL_TYPES.has(c.type));
    const labels = csr.metadata.labels;
    const annotations = csr.metadata.annotations;
    const next = structuredClone(old);
    for (const k of Object.keys(csr)) delete (csr as unknown as Record<string, unknown>)[k];
    Object.assign(csr, next);
    // Like any update, the object's labels and annotations come from the request.
    if (labels) csr.metadata.labels = labels;
    else delete csr.metadata.labels;
    if (annotations) csr.metadata.annotations = annotations;
    else delete csr.metadata.annotations;
    const others = (old.status?.conditions ?? []).filter((c) => !APPROVAL_TYPES.has(c.type));
    const conditions = [...wanted, ...others];
    const status = (csr.status ??= {});
    if (conditions.length) status.conditions = conditions;
    else delete status.conditions;
    populateConditionTimestamps(ctx, csr, old);
  },
  validateUpdate: (_ctx, csr, old) => validateCSRUpdate(csr, old),
  allowUnconditionalUpdate: true,
};
