// What the API handler is built from: the registry and stores, the access steps, and the
// server's limits. Shared by the plain and the upgraded request paths.
import type { IncomingMessage } from "node:http";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Clock } from "../../utils/clock.ts";
import type { Auditor } from "../audit/recorder.ts";
import type { RequestAuthenticator, UserInfo } from "../authentication/types.ts";
import type { AuthorizationAttributes, Authorizer } from "../authorization/types.ts";
import type { ObjectStore } from "../registry/generic/interface.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import type { HealthChecks, VersionInfo } from "./nonresource.ts";
import type { WatchLimits } from "./watch-budget.ts";
import type { WatchTally } from "./watch-tally.ts";

export interface HandlerDeps {
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ObjectStore;
  authenticator: RequestAuthenticator;
  authorizer: Authorizer;
  /** Applies Impersonate-* headers (authorizing each piece); absent: impersonation is refused. */
  impersonate?(headers: IncomingMessage["headers"], user: UserInfo): Promise<UserInfo>;
  /** kube's "User "x" cannot get resource ..." text; a default is used when absent. */
  forbiddenMessage?(attrs: AuthorizationAttributes): string;
  clock: Clock;
  logger: Logger;
  /** prom-client registry the request metrics are registered on and /metrics serves. */
  metrics: Registry;
  version?: VersionInfo;
  healthChecks?: HealthChecks;
  /** Default 3 MiB; larger bodies get 413. */
  maxBodyBytes?: number;
  /** Bounds of unread watch data (per watch, per user, in total) and of watches per user. */
  watchLimits?: Partial<WatchLimits>;
  /** Where the watch counts are kept (default: this handler's own; the workers of --workers share one). */
  watchTally?: WatchTally;
  /** The text /metrics serves (default: the `metrics` registry's; the workers of --workers serve all workers' together). */
  gatherMetrics?(): Promise<string>;
  /** kube-apiserver's --min-request-timeout in seconds: watch timeouts are in [n, 2n). */
  minRequestTimeoutSeconds?: number;
  /** host:port for APIVersions.serverAddressByClientCIDRs (default: the request's Host). */
  serverAddress?(): string;
  /** The audit log (--audit-policy-file, --audit-log-path); absent: no auditing. */
  audit?: Auditor;
}
