// Node strategy: spec.podCIDR and spec.podCIDRs are kept in step (as the v1 conversion does);
// main-resource and /status writes are validated the same way.
import type { Node } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { validateNode, validateNodeUpdate } from "./validation.ts";

function syncPodCIDRs(node: Node): void {
  const spec = asRecord(node.spec);
  if (!spec) return;
  const cidrs = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : [];
  if (typeof spec.podCIDR === "string" && spec.podCIDR && cidrs.length === 0) spec.podCIDRs = [spec.podCIDR];
  else if (!spec.podCIDR && typeof cidrs[0] === "string") spec.podCIDR = cidrs[0];
}

export const nodeStrategy: Strategy<Node> = {
  prepareForCreate: (_ctx, node) => syncPodCIDRs(node),
  prepareForUpdate: (_ctx, node) => syncPodCIDRs(node),
  validate: (_ctx, node) => validateNode(node),
  validateUpdate: (_ctx, node, old) => validateNodeUpdate(node, old),
  validateStatusUpdate: (_ctx, node, old) => validateNodeUpdate(node, old),
};
