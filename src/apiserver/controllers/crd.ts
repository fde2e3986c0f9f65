// CRDController: serves the resources CustomResourceDefinitions define. For each CRD it adds the
// cleanup finalizer, registers definitionsFromCRD(crd) in the ResourceRegistry and reports
// NamesAccepted/Established with acceptedNames. A CRD being deleted has all its objects deleted
// (objects with finalizers keep it waiting), then its definitions are removed, then the finalizer.
import type { CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionStatus } from "../../apis/apiextensions/v1/types.ts";
import type { Condition } from "../../apis/meta/v1/types.ts";
import type { ResourceRegistry } from "../registry/registry.ts";
import type { GroupResource, ResourceDefinition } from "../registry/types.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { setCondition } from "./conditions.ts";

export const CRDS: GroupResource = { group: "apiextensions.k8s.io", resource: "customresourcedefinitions" };
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

export interface CRDControllerOptions extends KeyControllerOptions {
  registry: ResourceRegistry;
  /** src/apiserver/registry/apiextensions/customresource.ts, injected. */
  definitionsFromCRD: (crd: CustomResourceDefinition) => ResourceDefinition[];
  /** How often a CRD waiting for its objects to go is checked again (default 2 s). */
  recheckMs?: number;
}

/** start() resolves once the existing CRDs were seen (they are established asynchronously; see idle()). */
export class CRDController extends KeyController<CRDControllerOptions> {
  /** What this controller registered, per CRD name (and from which CRD generation). */
  private readonly served = new Map<string, { generation: number | undefined; defs: ResourceDefinition[] }>();

  constructor(opts: CRDControllerOptions) {
    super(opts);
    this.watch(CRDS, (event) => this.queue.add(event.object.metadata.name!));
  }

  async sync(name: string): Promise<SyncResult> {
    const client = this.opts.client;
    let crd = (await client.get(CRDS, undefined, name)) as CustomResourceDefinition | undefined;
    if (!crd) {
      this.unregister(name);
      return undefined;
    }
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);

    const current = this.served.get(name);
    const unchanged = current !== undefined && current.generation === crd.metadata.generation;
    const defs = unchanged ? current.defs : this.opts.definitionsFromCRD(crd);
    const conflict = this.nameConflict(name, defs);
    if (conflict) {
      await this.writeStatus(crd, false, conflict);
      return undefined;
    }
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) {
      crd = (await client.update(CRDS, { ...crd, metadata: { ...crd.metadata, finalizers: [...finalizers, CRD_CLEANUP_FINALIZER] } })) as CustomResourceDefinition;
    }
    // Re-registering unchanged definitions would only churn discovery and the stores.
    if (!unchanged) this.register(name, defs, crd.metadata.generation);
    await this.writeStatus(crd, true);
    return undefined;
  }

  private nameConflict(name: string, defs: ResourceDefinition[]): string | undefined {
    for (const def of defs) {
      const other = this.opts.registry.anyVersion(def.group, def.plural);
      if (other && other.crdName !== name) return `"${def.plural}" is already in use`;
    }
    return undefined;
  }

  private register(name: string, defs: ResourceDefinition[], generation: number | undefined): void {
    const registry = this.opts.registry;
    const keep = new Set(defs.map((d) => `${d.group}/${d.version}/${d.plural}`));
    for (const old of this.served.get(name)?.defs ?? []) {
      if (!keep.has(`${old.group}/${old.version}/${old.plural}`)) registry.remove(old.group, old.version, old.plural);
    }
    for (const def of defs) registry.add(def);
    this.served.set(name, { generation, defs });
  }

  private unregister(name: string): void {
    for (const def of this.served.get(name)?.defs ?? []) this.opts.registry.remove(def.group, def.version, def.plural);
    this.served.delete(name);
  }

  private async writeStatus(crd: CustomResourceDefinition, accepted: boolean, conflict?: string): Promise<void> {
    const now = this.opts.clock.now();
    const status: CustomResourceDefinitionStatus = structuredClone(crd.status ?? {});
    let conditions: Condition[] = status.conditions ?? [];
    if (accepted) {
      conditions = setCondition(conditions, { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }, now);
      conditions = setCondition(conditions, { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }, now);
      status.acceptedNames = acceptedNames(crd.spec.names);
      const storage = crd.spec.versions.find((v) => v.storage)?.name;
      const stored = new Set(status.storedVersions ?? []);
      if (storage && !stored.has(storage)) status.storedVersions = [...stored, storage];
    } else {
      conditions = setCondition(conditions, { type: "NamesAccepted", status: "False", reason: "NameConflict", message: conflict ?? "" }, now);
      conditions = setCondition(conditions, { type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" }, now);
    }
    status.conditions = conditions;
    await this.opts.client.update(CRDS, { ...crd, status }, "status");
  }

  private async finalize(crd: CustomResourceDefinition): Promise<SyncResult> {
    const name = crd.metadata.name!;
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) {
      this.unregister(name);
      return undefined;
    }
    // The definitions must be served while their objects are deleted through them.
    if (!this.served.has(name)) this.register(name, this.opts.definitionsFromCRD(crd), crd.metadata.generation);
    const status: CustomResourceDefinitionStatus = structuredClone(crd.status ?? {});
    const terminating = { type: "Terminating", status: "True" as const, reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" };
    if (!status.conditions?.some((c) => c.type === "Terminating" && c.status === "True")) {
      status.conditions = setCondition(status.conditions ?? [], terminating, this.opts.clock.now());
      crd = (await this.opts.client.update(CRDS, { ...crd, status }, "status")) as CustomResourceDefinition;
    }
    if (await this.deleteObjects(name)) return this.opts.recheckMs ?? 2000;
    this.unregister(name);
    const rest = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    await this.opts.client.update(CRDS, { ...crd, metadata: { ...crd.metadata, finalizers: rest } });
    return undefined;
  }

  /** Deletes every object of the CRD's resource in every namespace; returns how many remain. */
  private async deleteObjects(name: string): Promise<number> {
    const def = this.served.get(name)?.defs[0];
    if (!def) return 0;
    const gr = { group: def.group, resource: def.plural };
    const items = (await this.opts.client.list(gr, undefined)).items;
    for (const item of items) {
      if (!item.metadata.deletionTimestamp) await this.opts.client.delete(gr, item.metadata.namespace, item.metadata.name!);
    }
    return items.length ? (await this.opts.client.list(gr, undefined)).items.length : 0;
  }
}

function acceptedNames(names: CustomResourceDefinitionNames): CustomResourceDefinitionNames {
  const out: CustomResourceDefinitionNames = { ...names };
  out.singular ||= names.kind.toLowerCase();
  out.listKind ||= `${names.kind}List`;
  return out;
}
