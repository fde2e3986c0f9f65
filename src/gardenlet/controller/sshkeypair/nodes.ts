// Which nodes run the latest node configuration (docs/maintenance-and-rotation.md): the rotation's
// prerequisite gate and its completion both ask whether every relevant node of every pool reports
// the checksum of its pool's OSC. Pure.
import type { Node } from "../../../apis/core/v1/types.ts";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, LABEL_NODE_AGENT_SECRET_NAME, LABEL_WORKER_POOL } from "../../../api/gardencore/osc.ts";
import type { PoolOSC } from "./oscsecrets.ts";

export interface NodesState {
  /** Relevant nodes that report their pool's checksum. */
  upToDate: number;
  /** Relevant nodes. */
  total: number;
  /** One message per outstanding node, in name order (Gardener's wording). */
  errors: string[];
}

/**
 * A relevant node of pool P: labelled with P, not being deleted, and following P's current OSC
 * Secret (its secret-name label, if present, names it).
 */
export function relevantPool(node: Node, pools: ReadonlyMap<string, PoolOSC>): PoolOSC | undefined {
  if (node.metadata.deletionTimestamp) return undefined;
  const pool = pools.get(node.metadata.labels?.[LABEL_WORKER_POOL] ?? "");
  if (!pool) return undefined;
  const follows = node.metadata.labels?.[LABEL_NODE_AGENT_SECRET_NAME];
  return follows === undefined || follows === pool.secretName ? pool : undefined;
}

export function nodesState(nodes: readonly Node[], desired: readonly PoolOSC[]): NodesState {
  const pools = new Map(desired.map((d) => [d.pool, d]));
  const state: NodesState = { upToDate: 0, total: 0, errors: [] };
  for (const node of [...nodes].sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""))) {
    const pool = relevantPool(node, pools);
    if (!pool) continue;
    state.total++;
    const name = node.metadata.name ?? "";
    const reported = node.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG];
    if (reported === pool.checksum) state.upToDate++;
    else if (reported === undefined) state.errors.push(`the last successfully applied operating system config on node "${name}" hasn't been reported yet`);
    else state.errors.push(`the last successfully applied operating system config on node "${name}" is outdated (current: ${reported}, desired: ${pool.checksum})`);
  }
  return state;
}

/** The SSHKeypairRotationPossible constraint's message while nodes are outstanding. */
export function waitingMessage(s: NodesState): string {
  return `SSH key pair rotation waits until all nodes have applied the latest operating system config (${s.upToDate}/${s.total} up to date): ${s.errors[0] ?? ""}`;
}
