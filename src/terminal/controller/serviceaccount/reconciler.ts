// The ServiceAccount controller (docs/terminals.md#the-serviceaccount-controller), upstream's
// ServiceAccountReconciler: a garden ServiceAccount that Terminals use as target credential with
// `cleanupProjectMembership` carries label `reference.dashboard.gardener.cloud/terminal: "true"` and
// finalizer `gardener.cloud/terminal` (the dashboard sets both, with owner references to the
// Terminals, so the garbage collector deletes it after the last one). Once no Terminal of its
// namespace references it (host or target), it leaves its project's members (with
// honourCleanupProjectMembership) and the finalizer goes, so the deletion completes instead of
// sticking on the finalizer.
import type { Project } from "../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { Client } from "../../../client/client.ts";
import { Projects } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import type { ReconcileContext, Reconciler, Request } from "../../../controllerruntime/reconcile.ts";
import { ServiceAccounts, Terminals } from "../../resources.ts";
import { leaveProject } from "../terminal/memberships.ts";

export const LABEL_TERMINAL_REFERENCE = "reference.dashboard.gardener.cloud/terminal";
export const FINALIZER_TERMINAL_REFERENCE = "gardener.cloud/terminal";

export interface ServiceAccountReconcilerDeps {
  client: Client;
  /** controllers.serviceAccount.allowedServiceAccountNames: empty allows every name. */
  allowedServiceAccountNames: string[];
  honourCleanupProjectMembership: boolean;
}

export const nameAllowed = (allowed: string[], name: string): boolean => allowed.length === 0 || allowed.includes(name);

export class ServiceAccountReconciler implements Reconciler {
  constructor(private readonly d: ServiceAccountReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<void> {
    const key = { namespace: req.namespace ?? "", name: req.name };
    const sa = await unlessNotFound(this.d.client.get(ServiceAccounts, key, { signal: rc.signal }));
    if (!sa) return;
    if (sa.metadata.labels?.[LABEL_TERMINAL_REFERENCE] !== "true") return this.release(sa, false, rc);
    if (!nameAllowed(this.d.allowedServiceAccountNames, req.name)) return this.release(sa, true, rc);
    // a live list: a Terminal created just before the dashboard labelled the ServiceAccount must count
    const terminals = await this.d.client.list(Terminals, { namespace: key.namespace, signal: rc.signal });
    const refs = (t: (typeof terminals.items)[number]) => [t.spec?.target?.credentials?.serviceAccountRef, t.spec?.host?.credentials?.serviceAccountRef];
    if (terminals.items.some((t) => refs(t).some((r) => r?.name === key.name && (r.namespace ?? "") === key.namespace))) {
      rc.log.info("service account still referenced by a terminal: membership cleanup deferred");
      return;
    }
    if (this.d.honourCleanupProjectMembership) await this.leaveProjectOf(key, rc);
    await this.release(sa, false, rc);
  }

  /** Removes the finalizer (and the reference label when asked), leaving everything else as it is. */
  private async release(sa: KubeObject, label: boolean, rc: ReconcileContext): Promise<void> {
    const finalizers = sa.metadata.finalizers ?? [];
    const hasLabel = label && sa.metadata.labels?.[LABEL_TERMINAL_REFERENCE] !== undefined;
    if (!finalizers.includes(FINALIZER_TERMINAL_REFERENCE) && !hasLabel) return;
    const body = {
      metadata: {
        resourceVersion: sa.metadata.resourceVersion,
        finalizers: finalizers.filter((f) => f !== FINALIZER_TERMINAL_REFERENCE),
        ...(hasLabel ? { labels: { [LABEL_TERMINAL_REFERENCE]: null } } : {}),
      },
    };
    await unlessNotFound(this.d.client.patch(ServiceAccounts, { namespace: sa.metadata.namespace ?? "", name: sa.metadata.name ?? "" }, { type: "merge", body }, { signal: rc.signal }));
  }

  /** Drops the ServiceAccount from the members of the project whose namespace it lives in. */
  private async leaveProjectOf(sa: Request & { namespace: string }, rc: ReconcileContext): Promise<void> {
    const projects = await this.d.client.listAll(Projects, { signal: rc.signal });
    const project = projects.items.find((p: Project) => p.spec?.namespace === sa.namespace);
    if (!project) return;
    // The same membership test and conflict retry as the terminal controller's (memberships.ts).
    if (await leaveProject(this.d.client, project, sa, rc.signal)) rc.log.info({ project: project.metadata.name }, "removed service account from project members");
  }
}
