// What the server knows about a resource: one ResourceDefinition per group/version/resource.
// Adding a built-in kind is one registry folder exporting a ResourceDefinition (strategy,
// schema, table); CRDs are turned into ResourceDefinitions at run time.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import type { KubeObject, TableColumnDefinition } from "../../apis/meta/v1/types.ts";
import type { FieldError } from "../../apimachinery/field/errors.ts";
import type { Clock } from "../../utils/clock.ts";
import type { UserInfo } from "../authentication/types.ts";

export interface GroupResource {
  group: string;
  resource: string;
}

export interface GroupVersionResource extends GroupResource {
  version: string;
}

/** Per-request facts strategies and handlers may use. */
export interface RequestContext {
  user: UserInfo;
  /** The namespace from the URL, if any. */
  namespace?: string;
  clock: Clock;
  dryRun: boolean;
  /** Warnings admission adds while serving the request (kube's warning recorder), sent as `Warning` headers. */
  warnings?: string[];
}

/**
 * Kind-specific behaviour around the generic store. All hooks are synchronous and pure apart
 * from mutating `obj`; cross-object checks belong in admission plugins.
 */
export interface Strategy<T extends KubeObject = KubeObject> {
  /** Defaults and clears fields on create. (The generic store already drops `status` when there is a status subresource.) */
  prepareForCreate?(ctx: RequestContext, obj: T): void;
  /** Main-resource update (the generic store already keeps the old `status` when there is a status subresource). */
  prepareForUpdate?(ctx: RequestContext, obj: T, old: T): void;
  validate?(ctx: RequestContext, obj: T): FieldError[];
  validateUpdate?(ctx: RequestContext, obj: T, old: T): FieldError[];
  /** `/status` update: obj already carries the old object with only `status` replaced. */
  prepareForStatusUpdate?(ctx: RequestContext, obj: T, old: T): void;
  validateStatusUpdate?(ctx: RequestContext, obj: T, old: T): FieldError[];
  /** PUT of a missing object creates it. Default false. */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is allowed. Default true for built-ins, false for CRDs. */
  allowUnconditionalUpdate?: boolean;
  /** Warnings (e.g. deprecations) returned as `Warning` headers. */
  warningsOnCreate?(ctx: RequestContext, obj: T): string[];
  /** Warnings of a main-resource update, from the object about to be stored. */
  warningsOnUpdate?(ctx: RequestContext, obj: T, old: T): string[];
  /**
   * What a delete without propagationPolicy does to dependents (kube's GarbageCollectionDeleteStrategy):
   * "DeleteDependents" (the default: background), "OrphanDependents", or "Unsupported" (events: no
   * garbage-collection finalizers are ever added).
   */
  defaultGarbageCollectionPolicy?: "DeleteDependents" | "OrphanDependents" | "Unsupported";
  /**
   * Graceful deletion (kube's CheckGracefulDelete): the grace period a delete of `obj` gets, from
   * the request's gracePeriodSeconds (undefined when unset). A period above 0 only marks the object
   * (deletionTimestamp in the future); a later delete may shorten it, and 0 removes it. Kinds
   * without this hook are deleted at once.
   */
  gracePeriodSeconds?(ctx: RequestContext, obj: T, requested: number | undefined): number;
}

export interface TableConvertor {
  /** Columns after the default Name column (kubectl adds nothing itself). */
  columns: TableColumnDefinition[];
  /** One cell per column in `columns`. */
  cells(obj: KubeObject, now: Date): unknown[];
}

/** A non-standard endpoint under a resource, e.g. serviceaccounts/token or pods/exec. */
export interface SubresourceHandler {
  /** Verbs the subresource supports, for discovery (e.g. ["create"]). */
  verbs: string[];
  /** Kind returned, for discovery (e.g. TokenRequest in authentication.k8s.io/v1). */
  responseKind: { group: string; version: string; kind: string };
  /**
   * Handles a request for <resource>/<name>/<subresource>. `body` is the decoded JSON body (if any).
   * Returns the response object and HTTP status, or throws a StatusError.
   */
  handle?(req: SubresourceRequest): Promise<{ status: number; body: unknown }>;
  /** Upgrade (WebSocket) handling for connect-style subresources such as exec/attach. */
  connect?(req: SubresourceRequest & { upgrade: unknown }): Promise<void>;
  /** A GET answered with a stream (pods/log): its content type and body (undefined: empty), sent until it ends or the client goes. */
  stream?(req: SubresourceRequest): Promise<{ contentType: string; body: AsyncIterable<Uint8Array | string> & { destroy(): void } | undefined }>;
  /**
   * Proxy subresources (pods/proxy, nodes/proxy, services/proxy): any method, the raw exchange and the
   * path after the subresource (`<resource>/<name>/proxy/<path>`). Resolves when the exchange is over;
   * throws a StatusError while nothing has been answered.
   */
  proxy?(req: SubresourceRequest & { http: ProxiedRequest }): Promise<void>;
}

/** The raw exchange a proxy subresource forwards. */
export interface ProxiedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** What follows `/proxy`, still percent-encoded: "" when nothing does, "/" for a trailing slash. */
  path: string;
  /** The query string without `?`, passed on as it is. */
  rawQuery: string;
  /** The request body's limit in bytes. */
  maxBodyBytes: number;
}

export interface SubresourceRequest {
  ctx: RequestContext;
  verb: string;
  namespace?: string;
  name: string;
  query: URLSearchParams;
  body?: unknown;
}

export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural resource name, e.g. "bastions". */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Verbs on the main resource; default: create, delete, deletecollection, get, list, patch, update, watch. */
  verbs?: string[];
  /** OpenAPI v3 schema of the whole object (apiVersion, kind, metadata, spec, status...). */
  schema: JSONSchemaProps;
  /** Has a `status` subresource with the usual rules. */
  hasStatus: boolean;
  strategy: Strategy;
  table?: TableConvertor;
  /** Extra field selectors beyond metadata.name / metadata.namespace. */
  fieldSelectors?: Record<string, (obj: KubeObject) => string | undefined>;
  subresources?: Record<string, SubresourceHandler>;
  /** Built-in kinds accept strategic merge patch; CRDs answer 415. */
  strategicMergePatch: boolean;
  /**
   * metadata.generation is set to 1 on create and bumped when anything but metadata (and status)
   * changes. Default true; false for the kinds Kubernetes gives no generation (ConfigMap, Secret,
   * Namespace, ServiceAccount, Node, Event, Lease, RBAC): they carry none.
   */
  tracksGeneration?: boolean;
  /** For kinds that are not stored (access reviews): the only verb is create, answered by this function. */
  virtualCreate?(ctx: RequestContext, obj: KubeObject): Promise<KubeObject>;
  /** Custom resources: the CRD that defines this resource. */
  crdName?: string;
  /** Custom resources with a scale subresource: where the replicas and the selector live (endpoints/scale.ts). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** A deprecated version: the `Warning` every request to it gets (a CRD version's deprecationWarning or the default text). */
  deprecationWarning?: string;
  /** The largest a stored object of this kind may be, in bytes of JSON (default: DEFAULT_MAX_OBJECT_BYTES in generic/size.ts). */
  maxObjectBytes?: number;
  /**
   * Rule for metadata.name and metadata.generateName (problems, empty when valid; `prefix` is true
   * for a generateName base). Default: DNS-1123 subdomain. Namespaces use DNS-1123 labels, RBAC
   * kinds path-segment names (so "system:masters" is valid).
   */
  nameValidator?: (name: string, prefix: boolean) => string[];
}

export const DEFAULT_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export function groupVersionOf(def: Pick<ResourceDefinition, "group" | "version">): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
