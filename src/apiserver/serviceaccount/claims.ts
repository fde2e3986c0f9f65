// Claims of service-account tokens ([k8s] pkg/serviceaccount/claims.go, legacy.go).
import { isRecord } from "../../utils/guards.ts";

export interface ObjectRefClaim {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of bound tokens. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRefClaim;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  warnafter?: number;
}

export interface BoundTokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  iat: number;
  nbf: number;
  exp: number;
  jti?: string;
  "kubernetes.io": KubernetesClaim;
  [claim: string]: unknown;
}

/** Claims of legacy, Secret-based tokens (no exp, no aud). */
export interface LegacyTokenClaims {
  iss: "kubernetes/serviceaccount";
  sub: string;
  "kubernetes.io/serviceaccount/namespace": string;
  "kubernetes.io/serviceaccount/secret.name": string;
  "kubernetes.io/serviceaccount/service-account.name": string;
  "kubernetes.io/serviceaccount/service-account.uid": string;
  [claim: string]: unknown;
}

/** `aud` may be a string or a list (RFC 7519 §4.1.3). */
export function audiencesOf(claims: Record<string, unknown>): string[] {
  const aud = claims.aud;
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === "string");
  return [];
}

/** The `kubernetes.io` claim when it has the required shape, else undefined. */
export function kubernetesClaimOf(claims: Record<string, unknown>): KubernetesClaim | undefined {
  const k = claims["kubernetes.io"];
  if (!isRecord(k) || typeof k.namespace !== "string" || !k.namespace) return undefined;
  const sa = refOf(k.serviceaccount);
  if (!sa) return undefined;
  const out: KubernetesClaim = { namespace: k.namespace, serviceaccount: sa };
  if (k.pod !== undefined) {
    const pod = refOf(k.pod);
    if (!pod) return undefined;
    out.pod = pod;
  }
  if (k.secret !== undefined) {
    const secret = refOf(k.secret);
    if (!secret) return undefined;
    out.secret = secret;
  }
  if (typeof k.warnafter === "number") out.warnafter = k.warnafter;
  return out;
}

function refOf(v: unknown): ObjectRefClaim | undefined {
  if (!isRecord(v) || typeof v.name !== "string" || !v.name || typeof v.uid !== "string") return undefined;
  return { name: v.name, uid: v.uid };
}

