// GarbageCollector: Kubernetes' garbage collector as one of the server's own controllers.
// - An object all of whose owners are gone (verified by a live read; an owner whose uid differs
//   is gone too) is deleted, with the propagation its own GC finalizers ask for (Background by default).
// - An owner deleted with propagationPolicy Foreground (finalizer foregroundDeletion) has its
//   dependents deleted, and keeps its finalizer until no dependent with blockOwnerDeletion is left.
// - An owner deleted with propagationPolicy Orphan (finalizer orphan) has its reference removed
//   from every dependent, then loses the finalizer.
// Dependents may be of any watched kind (CRDs included, their monitors follow the registry);
// a namespaced dependent's owner is looked up in the dependent's namespace unless the owner's kind
// is cluster-scoped. A cluster-scoped dependent of a namespaced kind can never be resolved.
import type { KubeObject, OwnerReference } from "../../../apis/meta/v1/types.ts";
import { isConflict } from "../../../apimachinery/errors.ts";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../../../apimachinery/validation/objectmeta.ts";
import type { Clock } from "../../../utils/clock.ts";
import type { InternalClient } from "../../registry/client.ts";
import type { ResourceRegistry } from "../../registry/registry.ts";
import type { GroupResource, ResourceDefinition } from "../../registry/types.ts";
import { KeyQueue, type SyncResult } from "../queue.ts";
import { deletingDependents, type GCNode, Graph, grKey, nodeOf, orphaningDependents } from "./graph.ts";
import { Monitor } from "./monitor.ts";
import { ownerPatches, type Patcher } from "./patches.ts";

const MAX_BACKOFF_MS = 5 * 60_000;
const MAX_TRACKED_FAILURES = 100_000;

/** Kinds kube's garbage collector ignores (DefaultIgnoredResources). */
const IGNORED = new Set(["/events", "events.k8s.io/events"]);

export interface GarbageCollectorOptions {
  client: InternalClient;
  registry: ResourceRegistry;
  clock: Clock;
  /** How long until an object whose owner's kind is not served is looked at again (default 30 s). */
  unresolvedRecheckMs?: number;
  onError?: (err: unknown, what?: string) => void;
}

type Classified = { solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[]; unresolved: "kind" | "scope" | undefined };

export class GarbageCollector {
  readonly graph = new Graph();
  private readonly monitors = new Map<string, Monitor>();
  private readonly attemptToDelete: KeyQueue;
  private readonly attemptToOrphan: KeyQueue;
  private readonly patch: Patcher;
  private unsubscribe: (() => void) | undefined;
  private synced = false;
  private readonly early = new Set<string>();
  private readonly earlyOrphans = new Set<string>();
  private stopped = false;

  constructor(private readonly opts: GarbageCollectorOptions) {
    this.attemptToDelete = new KeyQueue(opts.clock, this.withBackoff("attempt to delete", (uid) => this.processItem(uid)));
    this.attemptToOrphan = new KeyQueue(opts.clock, this.withBackoff("attempt to orphan", (uid) => this.processOrphan(uid)));
    this.patch = ownerPatches(opts.client);
  }

  /**
   * A failing item (a delete refused by admission, a conflict) is retried after 1 s, doubling up
   * to 5 minutes, and reported each time; success resets it (kube's rate-limited queues).
   */
  private withBackoff(what: string, sync: (uid: string) => Promise<SyncResult>): (uid: string) => Promise<SyncResult> {
    const failures = new Map<string, number>();
    return async (uid) => {
      try {
        const again = await sync(uid);
        failures.delete(uid);
        return again;
      } catch (err) {
        const n = (failures.get(uid) ?? 0) + 1;
        if (failures.size < MAX_TRACKED_FAILURES || failures.has(uid)) failures.set(uid, n);
        this.opts.onError?.(err, `${what} ${uid}`);
        return Math.min(1000 * 2 ** (n - 1), MAX_BACKOFF_MS);
      }
    };
  }

  /** Watches every resource; resolves once their objects are in the graph and processing started. */
  async start(): Promise<void> {
    this.unsubscribe = this.opts.registry.onChange(() => void this.syncMonitors());
    await this.syncMonitors();
    this.synced = true;
    for (const uid of this.early) this.attemptToDelete.add(uid);
    for (const uid of this.earlyOrphans) this.attemptToOrphan.add(uid);
    this.early.clear();
    this.earlyOrphans.clear();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const m of this.monitors.values()) m.stop();
    this.monitors.clear();
    this.attemptToDelete.stop();
    this.attemptToOrphan.stop();
  }

  /** Resolves when neither queue has work right now (tests). */
  async idle(): Promise<void> {
    await this.attemptToDelete.idle();
    await this.attemptToOrphan.idle();
    await this.attemptToDelete.idle();
  }

  /** The resources watched: every stored, listable, watchable, deletable one except events. */
  watchedResources(): ResourceDefinition[] {
    const out = new Map<string, ResourceDefinition>();
    for (const def of this.opts.registry.all()) {
      const key = grKey({ group: def.group, resource: def.plural });
      if (def.virtualCreate || IGNORED.has(key) || out.has(key)) continue;
      const verbs = def.verbs ?? ["list", "watch", "delete"];
      if (verbs.includes("list") && verbs.includes("watch") && verbs.includes("delete")) out.set(key, def);
    }
    return [...out.values()];
  }

  private async syncMonitors(): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map(this.watchedResources().map((d) => [grKey({ group: d.group, resource: d.plural }), d]));
    for (const [key, m] of this.monitors) {
      if (wanted.has(key)) continue;
      m.stop();
      this.monitors.delete(key);
      for (const uid of this.graph.uidsOf(m.gr)) this.onDelete(uid);
    }
    const starting: Promise<void>[] = [];
    for (const [key, def] of wanted) {
      if (this.monitors.has(key)) continue;
      const m = new Monitor({ group: def.group, resource: def.plural }, this.opts.client, this.opts.clock, {
        onUpsert: (gr, obj) => this.onUpsert(gr, obj),
        onDelete: (_gr, uid) => this.onDelete(uid),
        known: (gr) => this.graph.uidsOf(gr),
        onError: (err) => this.opts.onError?.(err, `watch ${key}`),
      });
      this.monitors.set(key, m);
      starting.push(m.start());
    }
    await Promise.all(starting);
  }

  private enqueue(uid: string): void {
    if (this.synced) this.attemptToDelete.add(uid);
    else this.early.add(uid);
  }

  private onUpsert(gr: GroupResource, obj: KubeObject): void {
    const node = nodeOf(gr, obj);
    if (!node) return;
    const old = this.graph.upsert(node);
    if (orphaningDependents(node) && !(old && orphaningDependents(old))) {
      if (this.synced) this.attemptToOrphan.add(node.uid);
      else this.earlyOrphans.add(node.uid);
    }
    if (deletingDependents(node) && !(old && deletingDependents(old))) {
      for (const dep of this.graph.dependentsOf(node.uid)) this.enqueue(dep.uid);
      this.enqueue(node.uid);
    }
    if (node.owners.length && !sameOwners(old?.owners, node.owners)) this.enqueue(node.uid);
    // An owner waiting in the foreground may be unblocked by a reference removed or made non-blocking.
    for (const ref of old?.owners ?? []) {
      const still = node.owners.find((r) => r.uid === ref.uid);
      if (ref.blockOwnerDeletion && !still?.blockOwnerDeletion) this.enqueueIfDeletingDependents(ref.uid);
    }
  }

  private onDelete(uid: string): void {
    const old = this.graph.remove(uid);
    for (const dep of this.graph.dependentsOf(uid)) this.enqueue(dep.uid);
    for (const ref of old?.owners ?? []) this.enqueueIfDeletingDependents(ref.uid);
  }

  private enqueueIfDeletingDependents(uid: string): void {
    const owner = this.graph.get(uid);
    if (owner && deletingDependents(owner)) this.enqueue(uid);
  }

  /** attemptToDeleteItem: decides about one object from its live state and its owners' live state. */
  async processItem(uid: string): Promise<SyncResult> {
    const node = this.graph.get(uid);
    if (!node) return undefined;
    const latest = await this.live(node);
    if (!latest) {
      this.onDelete(uid);
      return undefined;
    }
    const current = nodeOf(node.gr, latest)!;
    if (latest.metadata.deletionTimestamp && !deletingDependents(current)) return undefined;
    if (deletingDependents(current)) return this.processDeletingDependents(current, latest);
    if (current.owners.length === 0) return undefined;

    const c = await this.classify(current);
    if (c.unresolved) return c.unresolved === "kind" ? (this.opts.unresolvedRecheckMs ?? 30_000) : undefined;
    if (c.solid.length) {
      const gone = [...c.dangling, ...c.waiting].map((r) => r.uid);
      if (gone.length) await this.patch.removeOwners(current, new Set(gone));
      return undefined;
    }
    if (c.waiting.length && this.graph.dependentsOf(uid).length) {
      // Deleting it in the foreground while one of its dependents waits for it the same way would deadlock.
      if (this.graph.dependentsOf(uid).some(deletingDependents)) await this.patch.unblockOwners(current, new Set(c.waiting.map((r) => r.uid)));
      await this.deleteObject(current, "Foreground");
      return undefined;
    }
    const finalizers = current.finalizers;
    const policy = finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) ? "Orphan" : finalizers.includes(FINALIZER_DELETE_DEPENDENTS) ? "Foreground" : "Background";
    await this.deleteObject(current, policy);
    return undefined;
  }

  private async processDeletingDependents(owner: GCNode, latest: KubeObject): Promise<SyncResult> {
    const blocking = this.graph.dependentsOf(owner.uid).filter((d) => d.owners.some((r) => r.uid === owner.uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) {
      await this.patch.removeFinalizer(owner, latest, FINALIZER_DELETE_DEPENDENTS);
      return undefined;
    }
    for (const dep of blocking) if (!deletingDependents(dep)) this.attemptToDelete.add(dep.uid);
    return undefined;
  }

  /** attemptToOrphan: every dependent loses its reference to the owner, then the owner its finalizer. */
  async processOrphan(uid: string): Promise<SyncResult> {
    const node = this.graph.get(uid);
    if (!node) return undefined;
    const latest = await this.live(node);
    if (!latest) return undefined;
    const owner = nodeOf(node.gr, latest)!;
    if (!orphaningDependents(owner)) return undefined;
    for (const dep of this.graph.dependentsOf(uid)) await this.patch.removeOwners(dep, new Set([uid]));
    await this.patch.removeFinalizer(owner, latest, FINALIZER_ORPHAN_DEPENDENTS);
    return undefined;
  }

  /** The object as stored now, if it is still the one with this uid. */
  private async live(n: GCNode): Promise<KubeObject | undefined> {
    if (!this.opts.registry.anyVersion(n.gr.group, n.gr.resource)) return undefined;
    const obj = await this.opts.client.get(n.gr, n.namespace, n.name);
    return obj?.metadata.uid === n.uid ? obj : undefined;
  }

  private async classify(item: GCNode): Promise<Classified> {
    const out: Classified = { solid: [], dangling: [], waiting: [], unresolved: undefined };
    for (const ref of item.owners) {
      const def = this.ownerDefinition(ref);
      if (!def) return { ...out, unresolved: "kind" };
      if (def.namespaced && !item.namespace) return { ...out, unresolved: "scope" };
      const owner = await this.opts.client.get({ group: def.group, resource: def.plural }, def.namespaced ? item.namespace : undefined, ref.name);
      if (!owner || owner.metadata.uid !== ref.uid) out.dangling.push(ref);
      else if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS)) out.waiting.push(ref);
      else out.solid.push(ref);
    }
    return out;
  }

  /** The served definition of an owner reference's kind (its version if served, else any version of the group). */
  private ownerDefinition(ref: OwnerReference): ResourceDefinition | undefined {
    const [group, version] = ref.apiVersion.includes("/") ? ref.apiVersion.split("/", 2) : ["", ref.apiVersion];
    const registry = this.opts.registry;
    return registry.byKind(group!, version!, ref.kind) ?? registry.all().find((d) => d.group === group && d.kind === ref.kind);
  }

  private async deleteObject(n: GCNode, propagationPolicy: "Orphan" | "Foreground" | "Background"): Promise<void> {
    try {
      await this.opts.client.delete(n.gr, n.namespace, n.name, { propagationPolicy, preconditions: { uid: n.uid } });
    } catch (err) {
      // The uid precondition failed: the object was replaced by a new one of the same name, and this one is gone.
      if (!(isConflict(err) && (await this.live(n)) === undefined)) throw err;
    }
  }
}

function sameOwners(a: OwnerReference[] | undefined, b: OwnerReference[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((r, i) => r.uid === b[i]!.uid && r.apiVersion === b[i]!.apiVersion && r.kind === b[i]!.kind && r.name === b[i]!.name);
}
