// POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token ([k8s] pkg/registry/core/
// serviceaccount/storage/token.go): runs admission on the TokenRequest (NodeRestriction), validates
// it, checks the service account (and the bound Pod or Secret) exist, signs a bound token and
// answers 201 with status.token.
import type { TokenRequest, TokenRequestSpec } from "../../apis/authentication/v1/types.ts";
import type { Admission } from "../admission/chain.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { newBadRequest, newConflict, newInvalid, newMethodNotSupported, newNotFound } from "../../apimachinery/errors.ts";
import { type FieldError, Path, invalid } from "../../apimachinery/field/errors.ts";
import type { InternalClient } from "../registry/client.ts";
import type { ResourceDefinition, SubresourceHandler, SubresourceRequest } from "../registry/types.ts";
import type { ObjectRefClaim } from "./claims.ts";
import { DEFAULT_EXPIRATION_SECONDS, MAX_EXPIRATION_SECONDS, MIN_EXPIRATION_SECONDS, type TokenSigner } from "./signer.ts";
import { metaTime } from "../../utils/time.ts";
import { SERVICE_ACCOUNTS } from "../registry/core/resources.ts";

const TOKEN_REQUEST_GK = { group: "authentication.k8s.io", kind: "TokenRequest" };

export interface TokenRequestOptions {
  /** Audiences when the request names none (kube's --api-audiences). Default: [signer.issuer]. */
  apiAudiences?: string[];
  /** Longer requests are shortened to this (kube's --service-account-max-token-expiration). */
  maxExpirationSeconds?: number;
  /** Admission for the create (both phases, before validation, as kube's mutating phase runs first); needs `resource`. */
  admission?: Admission;
  /** The serviceaccounts definition (the admission attributes' resource). */
  resource?: ResourceDefinition;
}

export function tokenRequestSubresource(signer: TokenSigner, client: InternalClient, opts: TokenRequestOptions = {}): SubresourceHandler {
  return {
    verbs: ["create"],
    responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
    handle: async (req) => ({ status: 201, body: await createToken(signer, client, opts, req) }),
  };
}

async function createToken(signer: TokenSigner, client: InternalClient, opts: TokenRequestOptions, req: SubresourceRequest): Promise<TokenRequest> {
  if (req.verb !== "create") throw newMethodNotSupported({ group: "", resource: "serviceaccounts/token" }, req.verb);
  const namespace = req.namespace ?? "";
  const name = req.name;
  const body = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw newBadRequest("the body of a TokenRequest must be a JSON object");
  const input = body as Partial<TokenRequest>;
  const spec = defaultedSpec(input.spec, opts.apiAudiences ?? [signer.issuer]);
  await admit(client, opts, req, spec);

  const errs = validateTokenRequest(input.metadata ?? {}, spec, namespace, name);
  if (errs.length > 0) throw newInvalid(TOKEN_REQUEST_GK, name, errs);
  if (opts.maxExpirationSeconds && spec.expirationSeconds > opts.maxExpirationSeconds) spec.expirationSeconds = opts.maxExpirationSeconds;

  const sa = await serviceAccount(client, namespace, name);
  let bound: BoundClaims = {};
  if (spec.boundObjectRef) {
    const obj = await boundObjectOf(client, namespace, name, spec.boundObjectRef);
    bound = obj.claims;
    spec.boundObjectRef = { ...spec.boundObjectRef, uid: obj.uid };
  }

  const out: TokenRequest = {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { name, namespace },
    spec,
  };
  if (req.ctx.dryRun) return out;
  const signed = await signer.signBoundToken({
    namespace,
    serviceAccount: { name, uid: sa.metadata.uid ?? "" },
    audiences: spec.audiences,
    expirationSeconds: spec.expirationSeconds,
    ...bound,
  });
  out.metadata.creationTimestamp = metaTime(req.ctx.clock.now());
  out.status = { token: signed.token, expirationTimestamp: metaTime(signed.expirationTimestamp) };
  return out;
}

/** The request's spec with the default lifetime and audiences. */
function defaultedSpec(given: TokenRequestSpec | undefined, audiences: string[]): TokenRequestSpec & { expirationSeconds: number; audiences: string[] } {
  const spec = { ...(given ?? {}) };
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  return { ...spec, expirationSeconds, audiences: spec.audiences?.length ? spec.audiences : [...audiences] };
}

/** The service account a token is for; 404 when missing or being deleted. */
async function serviceAccount(client: InternalClient, namespace: string, name: string): Promise<KubeObject> {
  const sa = await client.get(SERVICE_ACCOUNTS, namespace, name);
  if (!sa || sa.metadata.deletionTimestamp) throw newNotFound(SERVICE_ACCOUNTS, name);
  return sa;
}

/** Runs admission (both phases) on the defaulted TokenRequest, when the server has admission. */
async function admit(client: InternalClient, opts: TokenRequestOptions, req: SubresourceRequest, spec: TokenRequestSpec): Promise<void> {
  if (!opts.admission || !opts.resource) return;
  const namespace = req.namespace ?? "";
  const name = req.name;
  const object: TokenRequest = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: { name, namespace }, spec };
  const attrs = { operation: "CREATE" as const, resource: opts.resource, subresource: "token", namespace, name, object, user: req.ctx.user, dryRun: req.ctx.dryRun };
  await opts.admission.admit(attrs, client);
  await opts.admission.validate(attrs, client);
}

/** The metadata must name the service account (if it names anything); the lifetime is 10 minutes..2^32 s. */
function validateTokenRequest(meta: { name?: string; namespace?: string }, spec: TokenRequestSpec, namespace: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.name && meta.name !== name) errs.push(invalid(Path.root("metadata").child("name"), meta.name, "must match the service account name if specified"));
  if (meta.namespace && meta.namespace !== namespace) {
    errs.push(invalid(Path.root("metadata").child("namespace"), meta.namespace, "must match the service account namespace if specified"));
  }
  const exp = spec.expirationSeconds;
  const expPath = Path.root("spec").child("expirationSeconds");
  if (typeof exp !== "number" || !Number.isInteger(exp)) errs.push(invalid(expPath, exp, "must be an integer"));
  else if (exp < MIN_EXPIRATION_SECONDS) errs.push(invalid(expPath, exp, "may not specify a duration less than 10 minutes"));
  else if (exp > MAX_EXPIRATION_SECONDS) errs.push(invalid(expPath, exp, "may not specify a duration larger than 2^32 seconds"));
  return errs;
}

type BoundObjectRef = NonNullable<TokenRequestSpec["boundObjectRef"]>;

type BoundClaims = { pod?: ObjectRefClaim; secret?: ObjectRefClaim };

/** The token's bound Pod or Secret (its claim and UID): only core Pods and Secrets; a Pod must run as the service account. */
async function boundObjectOf(client: InternalClient, namespace: string, name: string, ref: BoundObjectRef): Promise<{ claims: BoundClaims; uid?: string }> {
  const apiVersion = ref.apiVersion ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  if (group !== "" || (ref.kind !== "Pod" && ref.kind !== "Secret")) {
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1).split("/")[0];
    throw newBadRequest(`cannot bind token for serviceaccount "${name}" to object of type ${group}/${version}, Kind=${ref.kind ?? ""}`);
  }
  const bound = await boundObject(client, namespace, ref.kind, ref.name ?? "", ref.uid);
  const claim = { name: bound.metadata.name ?? "", uid: bound.metadata.uid ?? "" };
  if (ref.kind === "Secret") return { claims: { secret: claim }, uid: bound.metadata.uid };
  const podSa = ((bound.spec ?? {}) as { serviceAccountName?: string }).serviceAccountName;
  if (podSa !== undefined && podSa !== name) {
    throw newBadRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
  }
  return { claims: { pod: claim }, uid: bound.metadata.uid };
}

/** The Pod or Secret a token is bound to; 404 when missing, 409 when the UID differs. */
async function boundObject(client: InternalClient, namespace: string, kind: "Pod" | "Secret", name: string, uid: string | undefined): Promise<KubeObject> {
  const gr = { group: "", resource: kind === "Pod" ? "pods" : "secrets" };
  const obj = await client.get(gr, namespace, name);
  if (!obj) throw newNotFound(gr, name);
  if (uid && obj.metadata.uid !== uid) {
    throw newConflict(
      { group: "", resource: kind },
      name,
      `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return obj;
}

