// The client's public surface: typed access to any kind, StatusError mapping, write helpers.
export { Client, patchContentTypes } from "./client.ts";
export type { ClientOptions, ListOptions, Patch, PatchType, RequestOptions, WatchOptions, WriteOptions } from "./client.ts";
export { ConfigMaps, Leases, Namespaces, Secrets } from "./builtins.ts";
export type { ConfigMap, Lease, LeaseSpec, Namespace, Secret } from "./builtins.ts";
export { fromApiException, isTransient, reasonForCode, statusErrorFromResponse, statusErrorFromStatus } from "./errors.ts";
export { addFinalizer, createOrPatch, defaultRetry, hasFinalizer, patchStatus, removeFinalizer, retryOnConflict } from "./helpers.ts";
export type { OperationResult, RetryBackoff } from "./helpers.ts";
export { createMergePatch, mergeFrom } from "./patch.ts";
export { apiVersionOf, keyOf, keyString, parseKey, resourcePath, resourceType, typeId } from "./resource.ts";
export type { ObjectKey, ResourceType } from "./resource.ts";
export { KubeConfigTransport } from "./transport.ts";
export type { Transport, TransportRequest } from "./transport.ts";
export { WatchStreamError, watchStream } from "./watch.ts";
