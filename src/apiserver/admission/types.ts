// Admission: a chain of in-process plugins, all mutating ones first, then all validating ones.
// A plugin reads as a list of guard clauses and rejects with a StatusError (usually 403 or 422).
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { UserInfo } from "../authentication/types.ts";
import type { Authorizer } from "../authorization/types.ts";
import type { InternalClient } from "../registry/client.ts";
import type { ResourceDefinition } from "../registry/types.ts";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface AdmissionAttributes {
  operation: Operation;
  resource: ResourceDefinition;
  /** "" for the main resource. */
  subresource: string;
  namespace?: string;
  name: string;
  /** The new object (CREATE, UPDATE); mutating plugins may change it in place. */
  object?: KubeObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
  /** Where a plugin adds warnings for the client (`Warning` headers); absent for in-process calls. */
  warnings?: string[];
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase (nothing returned: done at once, as for the requests a plugin does not concern). */
  admit?(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void;
  /** Validating phase (nothing returned: done at once). */
  validate?(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void;
  /**
   * Plugins that ask the server's authorizer (Kubernetes' WantsAuthorizer) get it here before the
   * server serves; the authorizer is built after the chain, so it is handed over as a function.
   */
  setAuthorizer?(authorizer: () => Authorizer): void;
}
