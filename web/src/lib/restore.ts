// Panes survive a reload while their Terminals live (docs/dashboard.md#terminal-panes): the open
// panes are saved in localStorage, and on load only those whose identifier is still one of the
// user's Terminals (`list` per project namespace) come back. No DOM here, so node tests it.

export interface SavedPane {
  identifier: string;
  coordinate: { namespace: string; name?: string; target: string };
  params?: Record<string, unknown>;
  title: string;
}

export const MAX_SAVED_PANES = 20;

/** The saved panes in `text` (localStorage), malformed entries dropped, at most MAX_SAVED_PANES. */
export function readSaved(text: string | null): SavedPane[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text ?? "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((p): p is SavedPane => {
      const c = (p as SavedPane | null)?.coordinate;
      return typeof p?.identifier === "string" && typeof p.title === "string" && typeof c?.namespace === "string" && ["garden", "shoot", "cp"].includes(c.target);
    })
    .slice(0, MAX_SAVED_PANES);
}

/** The saved panes whose identifier is a live Terminal's, asking `list` once per namespace; a failed list drops that namespace's panes. */
export async function livePanes(saved: SavedPane[], list: (namespace: string) => Promise<{ metadata?: { identifier?: string } }[]>): Promise<SavedPane[]> {
  const namespaces = [...new Set(saved.map((p) => p.coordinate.namespace))];
  const live = new Set<string>();
  await Promise.all(namespaces.map(async (ns) => {
    const items = await list(ns).catch(() => []);
    for (const t of Array.isArray(items) ? items : []) if (t.metadata?.identifier) live.add(`${ns}/${t.metadata.identifier}`);
  }));
  return saved.filter((p) => live.has(`${p.coordinate.namespace}/${p.identifier}`));
}
