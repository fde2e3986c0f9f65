// The 409 an apply conflict answers, worded as kube-apiserver words it:
//   Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key
//   Apply failed with 2 conflicts: conflicts with "a":\n- .spec.x\nconflicts with "b" with subresource "status":\n- .status.y
import { StatusError } from "../../apimachinery/errors.ts";
import { parseManagerId } from "./managed.ts";
import { pathString } from "./pathelement.ts";
import type { Conflict } from "./updater.ts";

/** At most this many conflicts are listed (the message and causes stay small whatever the object). */
export const MAX_LISTED_CONFLICTS = 1000;

function printManager(id: string): string {
  let info;
  try {
    info = parseManagerId(id);
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(info.manager ?? "");
  if (info.subresource) s += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === "Update") s += ` using ${info.apiVersion ?? ""}`;
  return s;
}

export function conflictError(all: Conflict[]): StatusError {
  const conflicts = all.slice(0, MAX_LISTED_CONFLICTS);
  const causes = conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (all.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const paths = byManager.get(c.manager) ?? [];
      paths.push(pathString(c.path));
      byManager.set(c.manager, paths);
    }
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of byManager.get(manager)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${all.length} conflicts: ${lines.join("\n")}`;
  }
  return new StatusError(409, "Conflict", message, { causes });
}
