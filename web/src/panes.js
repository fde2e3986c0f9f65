// The open terminal panes (one session and identifier each), shared by the pages that open them and
// the pane area that shows them. They are saved in localStorage and come back after a reload while
// their Terminals live (lib/restore.ts).
import { reactive, watch } from "vue";
import { terminals } from "./api.js";
import { livePanes, readSaved } from "./lib/restore.ts";

const SAVED = "dashboard.panes";
export const panes = reactive([]);

watch(panes, () => localStorage.setItem(SAVED, JSON.stringify(panes)), { deep: true });

/** After login: the saved panes whose Terminals are still the user's. */
export async function restorePanes() {
  const live = await livePanes(readSaved(localStorage.getItem(SAVED)), (namespace) => terminals("list", { coordinate: { namespace } }));
  panes.splice(0, panes.length, ...live.filter((p) => !panes.some((q) => q.identifier === p.identifier)));
}

/** At logout: no panes, none saved. */
export function forgetPanes() {
  panes.splice(0);
  localStorage.removeItem(SAVED);
}

const TARGET_TEXT = { garden: "Garden Cluster", shoot: "Cluster", cp: "Control Plane" };

export function openPane(coordinate, params = {}) {
  const identifier = crypto.randomUUID ? crypto.randomUUID() : [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const title = [TARGET_TEXT[coordinate.target], coordinate.name ?? coordinate.namespace].join(" - ");
  panes.push({ identifier, coordinate, params, title });
  return identifier;
}

export function closePane(identifier) {
  const i = panes.findIndex((p) => p.identifier === identifier);
  if (i >= 0) panes.splice(i, 1);
}
