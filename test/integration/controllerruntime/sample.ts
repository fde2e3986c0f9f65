// The sample controller the integration tests (and the benchmark) run: every ConfigMap labelled
// sample.gardener.cloud/mirror=true gets a "<name>-mirror" ConfigMap in its namespace holding a
// copy of its data, controlled by it (ownerReference). A finalizer makes sure the mirror is
// deleted with its source. Changing or deleting the mirror by hand is undone, because the
// controller owns() mirrors. An annotation asks for a periodic requeue.
import type { ConfigMap } from "../../../src/client/builtins.ts";
import { ConfigMaps } from "../../../src/client/builtins.ts";
import { addFinalizer, createOrPatch, removeFinalizer, unlessNotFound } from "../../../src/client/helpers.ts";
import { newControllerManagedBy } from "../../../src/controllerruntime/builder.ts";
import type { Controller } from "../../../src/controllerruntime/controller.ts";
import type { Manager } from "../../../src/controllerruntime/manager.ts";
import { labelSelector } from "../../../src/controllerruntime/predicates.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../src/controllerruntime/reconcile.ts";

export const mirrorLabel = "sample.gardener.cloud/mirror";
export const finalizer = "sample.gardener.cloud/mirror";
export const requeueAnnotation = "sample.gardener.cloud/requeue-after-ms";

export function mirrorName(source: string): string {
  return `${source}-mirror`;
}

export class MirrorReconciler implements Reconciler {
  /** "namespace/name" of every reconcile this instance ran, in order. */
  readonly seen: string[] = [];

  constructor(private readonly mgr: Manager) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    this.seen.push(`${req.namespace}/${req.name}`);
    const client = this.mgr.client;
    let source = await unlessNotFound(this.mgr.cache.get(ConfigMaps, req, ctx.signal));
    if (!source) return; // gone; the finalizer already removed the mirror
    const mirrorKey = { namespace: req.namespace, name: mirrorName(req.name) };
    if (source.metadata.deletionTimestamp) {
      await unlessNotFound(client.delete(ConfigMaps, mirrorKey, { signal: ctx.signal }));
      await removeFinalizer(client, ConfigMaps, source, finalizer, { signal: ctx.signal });
      ctx.log.info("mirror deleted, finalizer removed");
      return;
    }
    source = await addFinalizer(client, ConfigMaps, source, finalizer, { signal: ctx.signal });
    const { result } = await createOrPatch(
      client,
      ConfigMaps,
      mirrorKey,
      (m) => {
        m.data = { ...source.data };
        m.metadata.labels = { ...m.metadata.labels, "sample.gardener.cloud/mirror-of": req.name };
        m.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: req.name, uid: source.metadata.uid ?? "", controller: true }];
      },
      { signal: ctx.signal },
    );
    if (result !== "unchanged") ctx.log.info({ result }, "mirror written");
    const after = Number(source.metadata.annotations?.[requeueAnnotation] ?? 0);
    return after > 0 ? { requeueAfterMs: after } : undefined;
  }
}

export function addMirrorController(mgr: Manager, opts: { name?: string; maxConcurrentReconciles?: number } = {}): { controller: Controller; reconciler: MirrorReconciler } {
  const reconciler = new MirrorReconciler(mgr);
  const controller = newControllerManagedBy(mgr)
    .named(opts.name ?? "mirror")
    .for(ConfigMaps, [labelSelector(`${mirrorLabel}=true`)])
    .owns(ConfigMaps)
    .withOptions({ maxConcurrentReconciles: opts.maxConcurrentReconciles ?? 2 })
    .complete(reconciler);
  return { controller, reconciler };
}

export function sourceConfigMap(namespace: string, name: string, data: Record<string, string>, annotations?: Record<string, string>): ConfigMap {
  return { metadata: { namespace, name, labels: { [mirrorLabel]: "true" }, ...(annotations ? { annotations } : {}) }, data };
}
