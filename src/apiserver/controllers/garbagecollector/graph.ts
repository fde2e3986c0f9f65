// The garbage collector's view of the cluster: every object of every watched resource by uid, with
// its owner references, and for each owner uid the uids of its dependents (an owner need not be
// known itself: it may never have existed, or be of a kind nobody watches).
import type { KubeObject, OwnerReference } from "../../../apis/meta/v1/types.ts";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../../../apimachinery/validation/objectmeta.ts";
import type { GroupResource } from "../../registry/types.ts";

export interface GCNode {
  gr: GroupResource;
  namespace: string | undefined;
  name: string;
  uid: string;
  owners: OwnerReference[];
  finalizers: string[];
  beingDeleted: boolean;
}

export function nodeOf(gr: GroupResource, obj: KubeObject): GCNode | undefined {
  const m = obj.metadata;
  if (!m.uid || !m.name) return undefined;
  return {
    gr,
    namespace: m.namespace || undefined,
    name: m.name,
    uid: m.uid,
    owners: (m.ownerReferences ?? []).filter((r) => typeof r?.uid === "string" && r.uid !== ""),
    finalizers: m.finalizers ?? [],
    beingDeleted: Boolean(m.deletionTimestamp),
  };
}

/** Being deleted in the foreground: waits for its blocking dependents to go. */
export function deletingDependents(n: Pick<GCNode, "beingDeleted" | "finalizers">): boolean {
  return n.beingDeleted && n.finalizers.includes(FINALIZER_DELETE_DEPENDENTS);
}

/** Being deleted with propagationPolicy Orphan: its dependents lose their reference to it first. */
export function orphaningDependents(n: Pick<GCNode, "beingDeleted" | "finalizers">): boolean {
  return n.beingDeleted && n.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS);
}

export function grKey(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

export class Graph {
  private readonly nodes = new Map<string, GCNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get(uid: string): GCNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Adds or replaces the node of n.uid; returns the node it replaced. */
  upsert(n: GCNode): GCNode | undefined {
    const old = this.remove(n.uid);
    this.nodes.set(n.uid, n);
    for (const ref of n.owners) {
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Set()));
      set.add(n.uid);
    }
    return old;
  }

  /** Removes the node; its dependents stay indexed under its uid (they still point to it). */
  remove(uid: string): GCNode | undefined {
    const old = this.nodes.get(uid);
    if (!old) return undefined;
    this.nodes.delete(uid);
    for (const ref of old.owners) {
      const set = this.dependents.get(ref.uid);
      set?.delete(uid);
      if (set?.size === 0) this.dependents.delete(ref.uid);
    }
    return old;
  }

  dependentsOf(ownerUID: string): GCNode[] {
    const out: GCNode[] = [];
    for (const uid of this.dependents.get(ownerUID) ?? []) {
      const n = this.nodes.get(uid);
      if (n) out.push(n);
    }
    return out;
  }

  /** Nodes of one resource (to find those that vanished while its watch was down). */
  uidsOf(gr: GroupResource): string[] {
    const key = grKey(gr);
    const out: string[] = [];
    for (const n of this.nodes.values()) if (grKey(n.gr) === key) out.push(n.uid);
    return out;
  }
}
