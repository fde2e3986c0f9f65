// The GCM's project controller (docs/bastion.md#project), after Gardener's: the finalizer `gardener`,
// the project namespace (project labels, uid annotation, the Project as owner) and the member and
// viewer RoleBindings in it, the per-project ClusterRoles and ClusterRoleBindings (clusterroles.ts), and the Project's `status.phase` with `observedGeneration`: `Pending`
// until the first pass, `Ready` after a pass that succeeded, `Failed` after one that did not,
// `Terminating` while its deletion waits for the namespace's Shoots or the namespace's deletion.
import { FINALIZER_GARDENER, type Project, type ProjectPhase } from "../../../apis/gardencore/v1beta1/types.ts";
import { semanticEqual } from "../../../api/equality.ts";
import { ClusterRoleBindings, ClusterRoles, RoleBindings } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import { Projects, Shoots } from "../../../client/garden.ts";
import { addFinalizer, createOrPatch, removeFinalizer, unlessNotFound } from "../../../client/helpers.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import { ensureNamespace, releaseNamespace } from "./namespace.ts";
import { desiredClusterRoles } from "./clusterroles.ts";
import { desiredRoleBindings } from "./rolebindings.ts";

export const RECONCILE_TIMEOUT_MS = 3 * 60 * 1000;
/** A Project whose namespace is being deleted is looked at again after this long (and when the namespace goes). */
export const RELEASE_RECHECK_MS = 60_000;

export const EVENT_NAMESPACE_RECONCILE_FAILED = "NamespaceReconcileFailed";
export const EVENT_NAMESPACE_RECONCILE_SUCCESSFUL = "NamespaceReconcileSuccessful";
export const EVENT_NAMESPACE_NOT_EMPTY = "NamespaceNotEmpty";
export const EVENT_NAMESPACE_DELETION_FAILED = "NamespaceDeletionFailed";
export const EVENT_NAMESPACE_MARKED_FOR_DELETION = "NamespaceMarkedForDeletion";

export interface ProjectReconcilerDeps {
  client: Client;
  cache: Cache;
  recorder?: EventRecorder;
}

export class ProjectReconciler implements Reconciler {
  constructor(private readonly d: ProjectReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const signal = AbortSignal.any([rc.signal, AbortSignal.timeout(RECONCILE_TIMEOUT_MS)]);
    const project = await unlessNotFound(this.d.client.get(Projects, req, { signal }));
    if (!project) return;
    if (project.metadata.deletionTimestamp) return this.delete(project, rc, signal);
    await this.ensure(project, rc, signal);
  }

  /** Sets the phase and observedGeneration (the Project's generation as read), unless both are so already. */
  private async phase(p: Project, phase: ProjectPhase, signal: AbortSignal): Promise<void> {
    const generation = p.metadata.generation;
    if (p.status?.phase === phase && p.status.observedGeneration === generation) return;
    await unlessNotFound(this.d.client.patchStatus(Projects, { name: p.metadata.name ?? "" }, { type: "merge", body: { status: { phase, observedGeneration: generation } } }, { signal }));
    p.status = { ...p.status, phase, observedGeneration: generation };
  }

  private event(p: Project, type: "Normal" | "Warning", reason: string, message: string): void {
    this.d.recorder?.event(p, type, reason, message);
  }

  /** Marks the Project Failed with a Warning event and rethrows, so the pass is retried with backoff. */
  private async fail(p: Project, err: unknown, message: string, signal: AbortSignal, reason = EVENT_NAMESPACE_RECONCILE_FAILED): Promise<never> {
    this.event(p, "Warning", reason, `${message}${(err as Error).message}`);
    await this.phase(p, "Failed", signal).catch(() => undefined);
    throw err;
  }

  private async ensure(input: Project, rc: ReconcileContext, signal: AbortSignal): Promise<void> {
    const project = await addFinalizer(this.d.client, Projects, input, FINALIZER_GARDENER, { signal });
    if (!project.status?.phase) await this.phase(project, "Pending", signal);
    const namespace = project.spec?.namespace;
    // Gardener names a namespace for a Project without one; here a Project without one stays Pending.
    if (!namespace) return;
    await ensureNamespace(this.d.client, project, namespace, signal).catch((err: unknown) => this.fail(project, err, "", signal));
    this.event(project, "Normal", EVENT_NAMESPACE_RECONCILE_SUCCESSFUL, `Successfully reconciled namespace "${namespace}" for project`);
    try {
      await this.rbac(project, namespace, rc, signal);
    } catch (err) {
      await this.fail(project, err, `Error while reconciling RBAC resources for namespace "${namespace}": `, signal);
    }
    await this.phase(project, "Ready", signal);
  }

  /** The member RoleBindings in the namespace, then the per-project ClusterRoles and their bindings. */
  private async rbac(project: Project, namespace: string, rc: ReconcileContext, signal: AbortSignal): Promise<void> {
    // Semantic comparison: an empty list the server drops must not cause a patch on every pass.
    const keep = <T extends object, K extends keyof T>(current: T, desired: T, fields: K[]) => {
      for (const f of fields) if (!semanticEqual(current[f], desired[f])) current[f] = desired[f];
    };
    const logged = (kind: string, name: string | undefined, result: string) => {
      if (result !== "unchanged") rc.log.info({ [kind]: name, result }, `project ${kind} written`);
    };
    for (const desired of desiredRoleBindings(project)) {
      const { result } = await createOrPatch(this.d.client, RoleBindings, { namespace, name: desired.metadata.name! }, (rb) => {
        keep(rb.metadata, desired.metadata, ["ownerReferences"]);
        keep(rb, desired, ["roleRef", "subjects"]);
      }, { signal });
      logged("roleBinding", desired.metadata.name, result);
    }
    for (const { role, binding } of desiredClusterRoles(project)) {
      const written = await createOrPatch(this.d.client, ClusterRoles, { name: role.metadata.name! }, (cr) => {
        keep(cr.metadata, role.metadata, ["ownerReferences"]);
        keep(cr, role, ["rules"]);
      }, { signal });
      logged("clusterRole", role.metadata.name, written.result);
      const { result } = await createOrPatch(this.d.client, ClusterRoleBindings, { name: binding.metadata.name! }, (crb) => {
        keep(crb.metadata, binding.metadata, ["ownerReferences"]);
        keep(crb, binding, ["roleRef", "subjects"]);
      }, { signal });
      logged("clusterRoleBinding", binding.metadata.name, result);
    }
  }

  private async delete(project: Project, rc: ReconcileContext, signal: AbortSignal): Promise<Result | void> {
    if (!project.metadata.finalizers?.includes(FINALIZER_GARDENER)) return;
    const namespace = project.spec?.namespace;
    if (namespace) {
      const shoots = await this.d.client.list(Shoots, { namespace, limit: 1, signal });
      if (shoots.items.length > 0) {
        this.event(project, "Warning", EVENT_NAMESPACE_NOT_EMPTY, `Cannot release namespace "${namespace}" because it still contains Shoots`);
        rc.log.info({ namespace }, "cannot release the project namespace: it still contains Shoots");
        await this.phase(project, "Terminating", signal);
        return;
      }
      let released: boolean;
      try {
        released = await releaseNamespace(this.d.client, project, namespace, signal);
      } catch (err) {
        return this.fail(project, err, `Failed to release project namespace "${namespace}": `, signal, EVENT_NAMESPACE_DELETION_FAILED);
      }
      if (!released) {
        this.event(project, "Normal", EVENT_NAMESPACE_MARKED_FOR_DELETION, `Successfully marked project namespace "${namespace}" for deletion`);
        await this.phase(project, "Terminating", signal);
        return { requeueAfterMs: RELEASE_RECHECK_MS };
      }
    }
    rc.log.info("removing the project finalizer");
    await removeFinalizer(this.d.client, Projects, project, FINALIZER_GARDENER, { signal });
  }
}
