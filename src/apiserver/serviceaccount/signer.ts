// Signs service-account tokens with the server's private key (sa.key or
// --service-account-signing-key-file): bound tokens for TokenRequest, and legacy Secret-based
// tokens for components that still want them.
import { type KeyObject, createPrivateKey, createPublicKey, randomUUID } from "node:crypto";
import { type Clock, realClock } from "../../utils/clock.ts";
import type { BoundTokenClaims, KubernetesClaim, LegacyTokenClaims, ObjectRefClaim } from "./claims.ts";
import { keyId, signJwt } from "./jwt.ts";
import { LEGACY_ISSUER, makeUsername } from "./util.ts";

/** TokenRequest defaults and limits (kube-apiserver's). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenSignerOptions {
  privateKeyPem: string;
  /** The `iss` claim (`--service-account-issuer`). */
  issuer: string;
  clock?: Clock;
}

export interface BoundTokenRequest {
  namespace: string;
  serviceAccount: ObjectRefClaim;
  audiences: string[];
  expirationSeconds: number;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
}

export interface SignedToken {
  token: string;
  expirationTimestamp: Date;
  claims: BoundTokenClaims;
}

export class TokenSigner {
  readonly issuer: string;
  readonly publicKey: KeyObject;
  readonly keyId: string;
  private readonly privateKey: KeyObject;
  private readonly clock: Clock;

  constructor(opts: TokenSignerOptions) {
    this.privateKey = createPrivateKey(opts.privateKeyPem);
    this.publicKey = createPublicKey(this.privateKey);
    this.keyId = keyId(this.publicKey);
    this.issuer = opts.issuer;
    this.clock = opts.clock ?? realClock;
  }

  /** A bound token valid from now for req.expirationSeconds (callers enforce the limits). */
  async signBoundToken(req: BoundTokenRequest): Promise<SignedToken> {
    const now = Math.floor(this.clock.nowMs() / 1000);
    const exp = now + req.expirationSeconds;
    const k8s: KubernetesClaim = { namespace: req.namespace, serviceaccount: { ...req.serviceAccount } };
    if (req.pod) k8s.pod = { ...req.pod };
    if (req.secret) k8s.secret = { ...req.secret };
    const claims: BoundTokenClaims = {
      aud: [...req.audiences],
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      "kubernetes.io": k8s,
      nbf: now,
      sub: makeUsername(req.namespace, req.serviceAccount.name),
    };
    return { token: await signJwt(claims, this.privateKey, this.keyId), expirationTimestamp: new Date(exp * 1000), claims };
  }

  /** A legacy token as the token controller put into `kubernetes.io/service-account-token` Secrets (no expiry). */
  signLegacyToken(namespace: string, serviceAccount: ObjectRefClaim, secretName: string): Promise<string> {
    const claims: LegacyTokenClaims = {
      iss: LEGACY_ISSUER,
      "kubernetes.io/serviceaccount/namespace": namespace,
      "kubernetes.io/serviceaccount/secret.name": secretName,
      "kubernetes.io/serviceaccount/service-account.name": serviceAccount.name,
      "kubernetes.io/serviceaccount/service-account.uid": serviceAccount.uid,
      sub: makeUsername(namespace, serviceAccount.name),
    };
    return signJwt(claims, this.privateKey, this.keyId);
  }
}
