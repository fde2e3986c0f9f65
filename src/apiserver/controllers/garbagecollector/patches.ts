// The garbage collector's writes to other objects: owner references removed or made non-blocking,
// its own finalizers removed. Each is a merge patch conditional on the resourceVersion just read,
// so a concurrent change makes it fail with 409 and the item is processed again.
import type { KubeObject, OwnerReference } from "../../../apis/meta/v1/types.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { GCNode } from "./graph.ts";

export interface Patcher {
  removeOwners(n: GCNode, uids: Set<string>): Promise<void>;
  unblockOwners(n: GCNode, uids: Set<string>): Promise<void>;
  removeFinalizer(n: GCNode, latest: KubeObject, finalizer: string): Promise<void>;
}

export function ownerPatches(client: InternalClient): Patcher {
  const editOwners = async (n: GCNode, edit: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> => {
    const obj = await client.get(n.gr, n.namespace, n.name);
    if (!obj || obj.metadata.uid !== n.uid) return;
    const refs = obj.metadata.ownerReferences ?? [];
    const next = edit(refs);
    if (JSON.stringify(next) === JSON.stringify(refs)) return;
    const metadata = { resourceVersion: obj.metadata.resourceVersion, ownerReferences: next.length ? next : null };
    await client.patch(n.gr, n.namespace, n.name, "merge", { metadata });
  };
  return {
    removeOwners: (n, uids) => editOwners(n, (refs) => refs.filter((r) => !uids.has(r.uid))),
    unblockOwners: (n, uids) => editOwners(n, (refs) => refs.map((r) => (uids.has(r.uid) && r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r))),
    async removeFinalizer(n, latest, finalizer) {
      const finalizers = latest.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      const metadata = { resourceVersion: latest.metadata.resourceVersion, finalizers: rest.length ? rest : null };
      await client.patch(n.gr, n.namespace, n.name, "merge", { metadata });
    },
  };
}
