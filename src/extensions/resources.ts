// Descriptors of the seed-side extension kinds (extensions.gardener.cloud/v1alpha1) for the
// typed client and the controller runtime's cache.
import { GROUP, VERSION, type Cluster, type ExtensionBastion } from "../apis/extensions/v1alpha1/types.ts";
import { resourceType } from "../client/resource.ts";

export const ExtensionBastions = resourceType<ExtensionBastion>({ group: GROUP, version: VERSION, kind: "Bastion", plural: "bastions", namespaced: true });
export const Clusters = resourceType<Cluster>({ group: GROUP, version: VERSION, kind: "Cluster", plural: "clusters", namespaced: false });
