// The GCM's project controller, RBAC part (docs/bastion.md#project): keeps the project namespace
// (labelled as the project's) and the member and viewer RoleBindings in it equal to the
// Project's owner and members.
import { LABEL_PROJECT_NAME, LABEL_ROLE, ROLE_PROJECT } from "../../../apis/gardencore/v1beta1/types.ts";
import { semanticEqual } from "../../../api/equality.ts";
import { isAlreadyExists } from "../../../apimachinery/errors.ts";
import { Namespaces } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { createOrPatch, unlessNotFound } from "../../../client/helpers.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import { Projects } from "../../../client/garden.ts";
import { RoleBindings } from "../../../client/builtins.ts";
import { desiredRoleBindings } from "./rolebindings.ts";

export const RECONCILE_TIMEOUT_MS = 3 * 60 * 1000;

export class ProjectReconciler implements Reconciler {
  constructor(private readonly d: { client: Client; cache: Cache }) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const signal = AbortSignal.any([rc.signal, AbortSignal.timeout(RECONCILE_TIMEOUT_MS)]);
    const project = await unlessNotFound(this.d.cache.get(Projects, req, signal));
    if (!project) return;
    const namespace = project.spec?.namespace;
    if (project.metadata.deletionTimestamp || !namespace) return;
    await this.ensureNamespace(project.metadata.name ?? "", namespace, signal);
    for (const desired of desiredRoleBindings(project)) {
      const { result } = await createOrPatch(
        this.d.client,
        RoleBindings,
        { namespace, name: desired.metadata.name! },
        (rb) => {
          // Semantic comparison: an empty list the server drops must not cause a patch on every pass.
          if (!semanticEqual(rb.metadata.ownerReferences, desired.metadata.ownerReferences)) rb.metadata.ownerReferences = desired.metadata.ownerReferences;
          if (!semanticEqual(rb.roleRef, desired.roleRef)) rb.roleRef = desired.roleRef;
          if (!semanticEqual(rb.subjects, desired.subjects)) rb.subjects = desired.subjects;
        },
        { signal },
      );
      if (result !== "unchanged") rc.log.info({ roleBinding: desired.metadata.name, result }, "project role binding written");
    }
  }

  /** Creates the namespace with the project labels, or adds them; a namespace of another project is an error. */
  private async ensureNamespace(project: string, name: string, signal: AbortSignal): Promise<void> {
    const labels = { [LABEL_PROJECT_NAME]: project, [LABEL_ROLE]: ROLE_PROJECT };
    const ns = await unlessNotFound(this.d.client.get(Namespaces, { name }, { signal }));
    if (!ns) {
      await this.d.client.create(Namespaces, { metadata: { name, labels } }, { signal }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
      return;
    }
    const owner = ns.metadata.labels?.[LABEL_PROJECT_NAME];
    if (owner !== undefined && owner !== project) throw new Error(`namespace ${name} belongs to project ${owner}, not ${project}`);
    if (owner === undefined || ns.metadata.labels?.[LABEL_ROLE] !== ROLE_PROJECT) {
      await this.d.client.patch(Namespaces, { name }, { type: "merge", body: { metadata: { labels } } }, { signal });
    }
  }
}
