// A Shoot's Status and Readiness as Gardener's dashboard shows them (docs/dashboard.md#the-frontend),
// from the summary `GET /api/namespaces/<ns>/shoots` answers. Pure: no DOM, no Vue.

export interface ShootOperation {
  type?: string;
  state?: string;
  progress?: number;
  description?: string;
}

export interface ShootCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ShootSummary {
  hibernated?: boolean;
  /** status.hibernated: the shoot is (still) asleep; differs from `hibernated` while it hibernates or wakes up. */
  statusHibernated?: boolean;
  reconciliationDeactivated?: boolean;
  lastOperation?: ShootOperation;
  lastErrors?: number;
  conditions?: ShootCondition[];
}

/**
 * Gardener's status title: `Hibernated`, `Hibernating` or `Waking up` first when that applies, then
 * `Reconciliation Deactivated` or `<type> <state>` of the last operation (a shoot without one is
 * `Create Pending`), with the progress while it is `Processing`.
 */
export function statusTitle(s: ShootSummary): string {
  const parts: string[] = [];
  const asleep = s.statusHibernated === true;
  const wanted = s.hibernated === true;
  if (asleep !== wanted) parts.push(asleep ? "Waking up" : "Hibernating");
  else if (asleep) parts.push("Hibernated");
  if (s.reconciliationDeactivated) {
    parts.push("Reconciliation Deactivated");
  } else {
    const type = s.lastOperation?.type || "Create";
    const state = s.lastOperation?.state || "Pending";
    const progress = state === "Processing" && typeof s.lastOperation?.progress === "number" ? ` (${s.lastOperation.progress}%)` : "";
    parts.push(`${type} ${state}${progress}`);
  }
  return parts.join(", ");
}

/** `error` for a failed last operation or recorded errors, else `ok`, `progressing` or `pending`. */
export function statusKind(s: ShootSummary): "ok" | "error" | "progressing" | "pending" {
  const state = s.lastOperation?.state || "Pending";
  if (state === "Failed" || state === "Error" || (s.lastErrors ?? 0) > 0) return "error";
  if (state === "Processing") return "progressing";
  if (state === "Pending") return "pending";
  return "ok";
}

// Gardener's names of the shoot conditions (short names as in the dashboard's readiness chips).
const CONDITIONS: Record<string, { name: string; short: string }> = {
  APIServerAvailable: { name: "API Server", short: "API" },
  ControlPlaneHealthy: { name: "Control Plane", short: "CP" },
  ObservabilityComponentsHealthy: { name: "Observability Components", short: "OC" },
  EveryNodeReady: { name: "Nodes", short: "N" },
  SystemComponentsHealthy: { name: "System Components", short: "SC" },
  MaintenancePreconditionsSatisfied: { name: "Maintenance Preconditions Satisfied", short: "M" },
  HibernationPossible: { name: "Hibernation Possible", short: "H" },
};

/** Another condition's names: its type split into words, the short name their capitals (`FooBarReady` -> `FB`). */
function derived(type: string): { name: string; short: string } {
  const words = type.replace(/(Available|Healthy|Ready|Satisfied)$/, "").match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [type];
  return { name: words.join(" "), short: words.map((w) => w[0]).join("").toUpperCase() || type.slice(0, 2) };
}

export interface Readiness {
  type: string;
  name: string;
  short: string;
  /** `True`, `False`, `Progressing` or `Unknown`, as the condition says. */
  status: string;
  title: string;
}

/** The shoot's conditions as readiness chips, in Gardener's order, known ones first. */
export function readiness(conditions: ShootCondition[] | undefined): Readiness[] {
  const order = Object.keys(CONDITIONS);
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  return [...(conditions ?? [])]
    .sort((a, b) => rank(a.type) - rank(b.type) || a.type.localeCompare(b.type))
    .map((c) => {
      const names = CONDITIONS[c.type] ?? derived(c.type);
      const detail = [c.reason, c.message].filter(Boolean).join(": ");
      return { type: c.type, name: names.name, short: names.short, status: c.status, title: `${names.name}: ${c.status}${detail ? ` (${detail})` : ""}` };
    });
}
