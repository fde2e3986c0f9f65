// NamespaceDeletionController: a namespace with a deletionTimestamp becomes Terminating, every
// object of every namespaced stored resource in it is deleted, and once they are all gone (objects
// with finalizers keep it waiting) the `kubernetes` finalizer is removed through namespaces/finalize,
// which lets the store delete the namespace. Also creates the default namespaces at start.
import { isAlreadyExists } from "../../apimachinery/errors.ts";
import type { InternalClient } from "../registry/client.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import { KUBERNETES_FINALIZER } from "./namespace-finalize.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { NAMESPACES } from "../registry/core/resources.ts";
export { NAMESPACES };

export const DEFAULT_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** Creates the default namespaces that are missing. */
export async function ensureDefaultNamespaces(client: InternalClient, names: readonly string[] = DEFAULT_NAMESPACES): Promise<void> {
  for (const name of names) {
    if (await client.get(NAMESPACES, undefined, name)) continue;
    try {
      await client.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

export interface NamespaceDeletionOptions extends KeyControllerOptions {
  registry: ResourceRegistry;
  /** How often a namespace waiting for its content is checked again (default 2 s). */
  recheckMs?: number;
}

export class NamespaceDeletionController extends KeyController<NamespaceDeletionOptions> {
  private readonly recheckMs: number;

  constructor(opts: NamespaceDeletionOptions) {
    super(opts);
    this.recheckMs = opts.recheckMs ?? 2000;
    this.watch(NAMESPACES, (event) => {
      if (event.type !== "DELETED" && event.object.metadata.deletionTimestamp) this.queue.add(event.object.metadata.name!);
    });
  }

  override async start(): Promise<void> {
    await ensureDefaultNamespaces(this.opts.client);
    await super.start();
  }

  /** One pass over one namespace; returns the recheck delay while content remains. */
  async sync(name: string): Promise<SyncResult> {
    const client = this.opts.client;
    let ns = await client.get(NAMESPACES, undefined, name);
    if (!ns?.metadata.deletionTimestamp) return undefined;
    const status = (ns.status ?? {}) as { phase?: string };
    if (status.phase !== "Terminating") {
      ns = await client.update(NAMESPACES, { ...ns, status: { ...status, phase: "Terminating" } }, "status");
    }
    if (await this.deleteContent(name)) return this.recheckMs;
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []);
    if (!finalizers.includes(KUBERNETES_FINALIZER)) return undefined;
    const spec = { ...(ns.spec as Record<string, unknown>), finalizers: finalizers.filter((f) => f !== KUBERNETES_FINALIZER) };
    await client.update(NAMESPACES, { ...ns, spec }, "finalize");
    return undefined;
  }

  /** Deletes what is left in the namespace; returns how many objects still exist. */
  private async deleteContent(namespace: string): Promise<number> {
    let remaining = 0;
    for (const def of namespacedStoredResources(this.opts.registry)) {
      const gr = { group: def.group, resource: def.plural };
      const items = (await this.opts.client.list(gr, namespace)).items;
      for (const item of items) if (!item.metadata.deletionTimestamp) await this.opts.client.delete(gr, namespace, item.metadata.name!);
      if (items.length) remaining += (await this.opts.client.list(gr, namespace)).items.length;
    }
    return remaining;
  }
}

/** One definition per namespaced group/resource that stores objects and can be listed and deleted. */
export function namespacedStoredResources(registry: ResourceRegistry): ResourceDefinition[] {
  const seen = new Set<string>();
  const out: ResourceDefinition[] = [];
  for (const def of registry.all()) {
    if (!def.namespaced || def.virtualCreate) continue;
    const verbs = def.verbs ?? ["list", "delete"];
    if (!verbs.includes("list") || !verbs.includes("delete")) continue;
    const key = `${def.group}/${def.plural}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(def);
  }
  return out;
}
