// The projects a member may see though the garden does not let them list Projects
// (docs/dashboard.md#reading-as-the-user), as upstream's dashboard does it: the dashboard lists the
// Projects with its own read-only garden credential and keeps those whose stored `spec.members`
// name the user (as the garden authenticated the token: the user's name, one of their groups, or the
// ServiceAccount they are), leaving out projects whose phase is Pending. Only name, namespace, phase and
// description reach the user. Bounded: at most MAX_SCANNED Projects are read, in pages.
import type { Project } from "../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../client/client.ts";
import { Projects } from "../client/garden.ts";

export const PAGE = 500;
export const MAX_SCANNED = 10_000;

export interface Identity {
  username: string;
  groups: string[];
}

/** Whether the project's members name the user (upstream's `isMemberOf`). */
export function isMemberOf(p: Project, user: Identity): boolean {
  return (p.spec?.members ?? []).some((m) => {
    if (m.kind === "User") return m.name === user.username;
    if (m.kind === "Group") return user.groups.includes(m.name);
    if (m.kind === "ServiceAccount") return user.username === `system:serviceaccount:${m.namespace ?? ""}:${m.name}`;
    return false;
  });
}

/** The user's projects, read with the dashboard's own client; `truncated` when more than MAX_SCANNED exist. */
export async function memberProjects(own: Client, user: Identity, maxItems: number): Promise<{ items: Project[]; truncated: boolean }> {
  const items: Project[] = [];
  let next: string | undefined;
  let scanned = 0;
  do {
    const page = await own.list(Projects, { limit: PAGE, timeoutMs: 10_000, ...(next ? { continue: next } : {}) });
    scanned += page.items.length;
    // as upstream: a Project without a phase yet counts as Pending (the project controller sets it)
    for (const p of page.items) if ((p.status?.phase ?? "Pending") !== "Pending" && isMemberOf(p, user)) items.push(p);
    next = page.metadata?.continue || undefined;
  } while (next && scanned < MAX_SCANNED && items.length <= maxItems);
  return { items: items.slice(0, maxItems), truncated: Boolean(next) || items.length > maxItems };
}
