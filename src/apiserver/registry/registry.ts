// The set of resources a server serves right now: built-in definitions registered at start-up,
// CRD-defined ones added and removed at run time. Discovery, OpenAPI and routing read it.
import type { ResourceDefinition } from "./types.ts";

export class ResourceRegistry {
  private readonly defs = new Map<string, ResourceDefinition>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  private static key(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }

  /** Adds or replaces a definition. */
  add(def: ResourceDefinition): void {
    this.defs.set(ResourceRegistry.key(def.group, def.version, def.plural), def);
    this.changed();
  }

  remove(group: string, version: string, plural: string): boolean {
    const removed = this.defs.delete(ResourceRegistry.key(group, version, plural));
    if (removed) this.changed();
    return removed;
  }

  get(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.defs.get(ResourceRegistry.key(group, version, plural));
  }

  byKind(group: string, version: string, kind: string): ResourceDefinition | undefined {
    for (const d of this.defs.values()) if (d.group === group && d.version === version && d.kind === kind) return d;
    return undefined;
  }

  /** Any served version of group/resource (the first registered one). */
  anyVersion(group: string, plural: string): ResourceDefinition | undefined {
    for (const d of this.defs.values()) if (d.group === group && d.plural === plural) return d;
    return undefined;
  }

  all(): ResourceDefinition[] {
    return [...this.defs.values()];
  }

  /** Bumped on every change; used as the OpenAPI/discovery ETag. */
  get version(): number {
    return this.generation;
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.generation++;
    for (const fn of this.listeners) fn();
  }
}
