// The core group's resources as GroupResources, for the server's own parts that reach them through
// the InternalClient (registry/client.ts) or name them in errors: one declaration each.
import type { GroupResource } from "../types.ts";

const core = (resource: string): GroupResource => ({ group: "", resource });

export const CONFIG_MAPS = core("configmaps");
export const ENDPOINTS = core("endpoints");
export const NAMESPACES = core("namespaces");
export const NODES = core("nodes");
export const PERSISTENT_VOLUMES = core("persistentvolumes");
export const PODS = core("pods");
export const SECRETS = core("secrets");
export const SERVICE_ACCOUNTS = core("serviceaccounts");
export const SERVICES = core("services");
