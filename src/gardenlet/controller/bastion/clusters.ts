// Seed-side Clusters (docs/bastion.md#cluster) link control-plane namespaces and garden Shoots:
// the Cluster named like a namespace embeds the Shoot in spec.shoot.
import type { Cluster } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import { Clusters } from "../../../extensions/resources.ts";

/** The garden namespace and name of the Shoot a Cluster embeds (empty strings when absent). */
export function shootOfCluster(cluster: Cluster): { namespace: string; name: string } {
  const shoot = cluster.spec?.shoot as { metadata?: { namespace?: unknown; name?: unknown } } | undefined;
  const meta = shoot?.metadata;
  return {
    namespace: typeof meta?.namespace === "string" ? meta.namespace : "",
    name: typeof meta?.name === "string" ? meta.name : "",
  };
}

/** The name (= control-plane namespace) of the Cluster embedding Shoot namespace/name, if any. */
export async function namespaceFromClusters(cache: Cache, namespace: string, name: string, signal?: AbortSignal): Promise<string | undefined> {
  for (const c of await cache.list(Clusters, {}, signal)) {
    const s = shootOfCluster(c);
    if (s.namespace === namespace && s.name === name) return c.metadata.name;
  }
  return undefined;
}
