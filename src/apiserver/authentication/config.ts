// Assembles the server's authenticators from its flags, in kube-apiserver's order: client
// certificates, then bearer tokens (static token file, then service-account JWTs), then
// (optionally) anonymous.
import type { KeyObject } from "node:crypto";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { BearerTokenAuthenticator } from "./bearer.ts";
import { ServiceAccountTokenAuthenticator } from "./serviceaccount.ts";
import { TokenFileAuthenticator } from "./tokenfile.ts";
import type { RequestAuthenticator, TokenAuthenticator } from "./types.ts";
import { UnionAuthenticator, UnionTokenAuthenticator } from "./union.ts";
import { X509Authenticator } from "./x509.ts";

export interface AuthenticationConfig {
  /** Accept verified client certificates (the HTTP layer checks them against --client-ca-file). */
  clientCertificates?: boolean;
  /** --token-auth-file */
  tokenAuthFile?: string;
  serviceAccounts?: {
    /** --service-account-key-file (parsed with parsePublicKeys) or the public half of sa.key. */
    publicKeys: KeyObject[];
    /** --service-account-issuer (repeatable; the first one signs). */
    issuers: string[];
    client: InternalClient;
    clock?: Clock;
  };
  /** --api-audiences; default the service-account issuers. */
  apiAudiences?: string[];
  /** --anonymous-auth; default false. */
  anonymous?: boolean;
}

export interface Authenticators {
  /** For every request: the user, undefined (answer 401), or throws 401. */
  request: RequestAuthenticator;
  /** For TokenReview. */
  token: TokenAuthenticator;
}

export function buildAuthenticators(cfg: AuthenticationConfig): Authenticators {
  const apiAudiences = cfg.apiAudiences ?? cfg.serviceAccounts?.issuers ?? [];
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (cfg.tokenAuthFile) tokenAuthenticators.push(TokenFileAuthenticator.fromFile(cfg.tokenAuthFile));
  if (cfg.serviceAccounts) tokenAuthenticators.push(new ServiceAccountTokenAuthenticator({ ...cfg.serviceAccounts, apiAudiences }));
  const token = new UnionTokenAuthenticator(tokenAuthenticators, { apiAudiences });
  const request: RequestAuthenticator[] = [];
  if (cfg.clientCertificates ?? true) request.push(new X509Authenticator());
  request.push(new BearerTokenAuthenticator(token));
  return { request: new UnionAuthenticator(request, { anonymous: cfg.anonymous ?? false }), token };
}
