// The open terminal panes (one session and identifier each), shared by the pages that open them and
// the pane area that shows them.
import { reactive } from "vue";

export const panes = reactive([]);

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
