// The seed authorizer's graph: directed edges between typed vertices (Bastion -> Seed,
// Shoot -> Seed), kept current from watches. A request on an object is allowed when the graph
// has a path from the object's vertex to the requesting gardenlet's Seed.

export type VertexType = "Bastion" | "Shoot" | "Seed";

export function vertex(type: VertexType, namespace: string | undefined, name: string): string {
  return namespace ? `${type}:${namespace}/${name}` : `${type}:${name}`;
}

export class Graph {
  private readonly out = new Map<string, Set<string>>();

  /** Replaces every outgoing edge of `from` (no targets: the vertex goes). */
  setEdges(from: string, targets: string[]): void {
    if (targets.length === 0) this.out.delete(from);
    else this.out.set(from, new Set(targets));
  }

  removeVertex(from: string): void {
    this.out.delete(from);
  }

  /** Drops every vertex of one type (before a relist replaces them). */
  clearType(type: VertexType): void {
    for (const key of [...this.out.keys()]) if (key.startsWith(`${type}:`)) this.out.delete(key);
  }

  hasPath(from: string, to: string): boolean {
    const seen = new Set<string>([from]);
    const queue = [from];
    while (queue.length) {
      const v = queue.shift()!;
      if (v === to) return true;
      for (const next of this.out.get(v) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  }

  /** Number of vertices with outgoing edges (tests, metrics). */
  get size(): number {
    return this.out.size;
  }
}
