// Authentication and authorization as configured by the flags: client certificates, static
// tokens (--token-auth-file), bootstrap tokens (--enable-bootstrap-token-auth), service-account tokens, anonymous (--anonymous-auth); authorizers
// in --authorization-mode order behind the always-on system:masters authorizer.
import { readFile } from "node:fs/promises";
import type { KeyObject } from "node:crypto";
import type { Logger } from "pino";
import type { Clock } from "../../utils/clock.ts";
import { BearerTokenAuthenticator } from "../authentication/bearer.ts";
import { BootstrapTokenAuthenticator } from "../authentication/bootstraptoken.ts";
import { ServiceAccountTokenAuthenticator } from "../authentication/serviceaccount.ts";
import { TokenFileAuthenticator } from "../authentication/tokenfile.ts";
import type { RequestAuthenticator, TokenAuthenticator } from "../authentication/types.ts";
import { UnionAuthenticator, UnionTokenAuthenticator } from "../authentication/union.ts";
import { X509Authenticator } from "../authentication/x509.ts";
import { MastersAuthorizer } from "../authorization/masters.ts";
import { NodeAuthorizer } from "../authorization/node/authorizer.ts";
import { RBACAuthorizer } from "../authorization/rbac.ts";
import { SeedAuthorizer } from "../authorization/seed/authorizer.ts";
import { type Authorizer, type AuthorizationResult, UnionAuthorizer } from "../authorization/types.ts";
import type { InternalClient } from "../registry/client.ts";
import { parsePublicKeys } from "../serviceaccount/jwt.ts";
import type { AuthorizationMode } from "./options.ts";

export interface Authentication {
  authenticator: RequestAuthenticator;
  /** For TokenReview. */
  tokenAuthenticator: TokenAuthenticator;
}

export interface AuthenticationConfig {
  tokenAuthFile?: string;
  /** --enable-bootstrap-token-auth */
  bootstrapTokens?: boolean;
  /** PEM texts of --service-account-key-file (public or private keys, certificates). */
  serviceAccountKeyPems: string[];
  /** Always accepted: the signing key's public half. */
  signingPublicKey: KeyObject;
  issuers: string[];
  anonymous: boolean;
  client: InternalClient;
  clock: Clock;
}

export async function buildAuthentication(c: AuthenticationConfig): Promise<Authentication> {
  const publicKeys = [c.signingPublicKey, ...c.serviceAccountKeyPems.flatMap((pem) => parsePublicKeys(pem))];
  const tokens: TokenAuthenticator[] = [];
  if (c.tokenAuthFile) tokens.push(TokenFileAuthenticator.fromText(await readFile(c.tokenAuthFile, "utf8"), c.tokenAuthFile));
  if (c.bootstrapTokens) tokens.push(new BootstrapTokenAuthenticator({ client: c.client, clock: c.clock }));
  tokens.push(new ServiceAccountTokenAuthenticator({ publicKeys, issuers: c.issuers, client: c.client, clock: c.clock }));
  const tokenAuthenticator = new UnionTokenAuthenticator(tokens, { apiAudiences: c.issuers });
  const authenticator = new UnionAuthenticator([new X509Authenticator(), new BearerTokenAuthenticator(tokenAuthenticator)], { anonymous: c.anonymous });
  return { authenticator, tokenAuthenticator };
}

const fixed = (decision: AuthorizationResult["decision"]): Authorizer => ({
  authorize: () => Promise.resolve({ decision, reason: "" }),
});

export interface Authorization {
  authorizer: UnionAuthorizer;
  /** Starts the authorizers' caches (RBAC lists and watches its four kinds). */
  start(): Promise<void>;
  stop(): void;
}

export function buildAuthorization(modes: AuthorizationMode[], client: InternalClient, clock: Clock, logger: Logger): Authorization {
  const cached: (RBACAuthorizer | SeedAuthorizer | NodeAuthorizer)[] = [];
  const chain: Authorizer[] = [new MastersAuthorizer()];
  for (const m of modes) {
    if (m === "Node") {
      const a = new NodeAuthorizer(client, { clock, onError: (err) => logger.warn({ err }, "node authorizer watch failed; relisting") });
      cached.push(a);
      chain.push(a);
    } else if (m === "Seed") {
      const a = new SeedAuthorizer(client, { clock, onError: (err) => logger.warn({ err }, "seed authorizer watch failed; relisting") });
      cached.push(a);
      chain.push(a);
    } else if (m === "RBAC") {
      const a = new RBACAuthorizer(client, { clock, onError: (err) => logger.warn({ err }, "RBAC cache watch failed; relisting") });
      cached.push(a);
      chain.push(a);
    } else if (m === "AlwaysAllow") chain.push(fixed("allow"));
    else chain.push(fixed("deny"));
  }
  return {
    authorizer: new UnionAuthorizer(chain),
    async start() {
      await Promise.all(cached.map((a) => a.start()));
    },
    stop() {
      for (const a of cached) a.stop();
    },
  };
}
