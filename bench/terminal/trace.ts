// Where one terminal's time goes (bench/terminal --trace): the milestones of each pane from the bench's
// `create` (or the browser's click) to the prompt, in wall-clock milliseconds. API milestones are the
// arrival of watch events: the garden's Terminal (the controller's status writes) and the host's pod
// (created, bound, the init container, the terminal container); the bench adds its own calls' answers and
// the browser's WebSocket and screen.
import type { Terminal } from "../../src/apis/dashboard/v1alpha1/types.ts";
import { COMPONENT_TCM, LABEL_COMPONENT, LABEL_IDENTIFIER } from "../../src/apis/dashboard/v1alpha1/types.ts";
import type { Pod } from "../../src/apis/core/v1/pod.ts";
import { Pods } from "../../src/client/builtins.ts";
import type { Client } from "../../src/client/client.ts";
import { Terminals } from "../../src/client/garden.ts";
import type { ResourceType } from "../../src/client/resource.ts";
import { percentile } from "../support/stats.ts";

/** The milestones in the order they happen on the path; a pane may lack some (a browser-only one, say). */
export const MILESTONES = [
  "click",
  "create sent",
  "garden: Terminal created",
  "create answered",
  "tcm: reconcile started",
  "tcm: attach SA (status)",
  "host: pod created",
  "tcm: podName (status)",
  "host: pod bound",
  "tcm: Succeeded (ready)",
  "host: init container running",
  "host: init container done",
  "host: container running",
  "host: container ready (status)",
  "fetch answered",
  "browser: WebSocket opened",
  "browser: attached (connected)",
  "browser: first output",
  "browser: prompt on screen",
] as const;
export type Milestone = (typeof MILESTONES)[number];
export type Trace = Partial<Record<Milestone, number>>;

/** The Terminal milestones a version of the object shows. */
export function terminalMilestones(t: Terminal): Milestone[] {
  const out: Milestone[] = ["garden: Terminal created"];
  const op = t.status?.lastOperation;
  if (op) out.push("tcm: reconcile started");
  if (t.status?.attachServiceAccountName) out.push("tcm: attach SA (status)");
  if (t.status?.podName) out.push("tcm: podName (status)");
  if (op?.type === "Reconcile" && op.state === "Succeeded" && t.status?.podName) out.push("tcm: Succeeded (ready)");
  return out;
}

/** The pod milestones a version of the object shows. */
export function podMilestones(p: Pod): Milestone[] {
  const out: Milestone[] = ["host: pod created"];
  if (p.spec?.nodeName) out.push("host: pod bound");
  const init = p.status?.initContainerStatuses?.[0];
  if (init?.state?.running || init?.state?.terminated) out.push("host: init container running");
  if (init?.state?.terminated?.exitCode === 0) out.push("host: init container done");
  const main = p.status?.containerStatuses?.find((c) => c.name === "terminal");
  if (main?.state?.running) out.push("host: container running");
  if (main?.ready) out.push("host: container ready (status)");
  return out;
}

/** Follows the garden's Terminals and the host's terminal pods; records each pane's milestones as they arrive. */
export class TerminalTracer {
  private readonly seen = new Map<string, Trace>();
  /** spec.identifier -> Terminal name, to file pod events under their Terminal. */
  private readonly byIdentifier = new Map<string, string>();
  private readonly abort = new AbortController();

  constructor(
    private readonly garden: Client,
    private readonly gardenNamespace: string,
    private readonly host: Client,
  ) {}

  /** Records a milestone of Terminal `name` (the first time only). */
  mark(name: string, k: Milestone, at = Date.now()): void {
    const m = this.seen.get(name) ?? {};
    if (m[k] === undefined) m[k] = at;
    this.seen.set(name, m);
  }

  /** Moves what was recorded under a provisional key (a click before its Terminal has a name). */
  rename(from: string, to: string): void {
    const m = this.seen.get(from);
    if (!m) return;
    this.seen.delete(from);
    for (const [k, v] of Object.entries(m)) this.mark(to, k as Milestone, v);
  }

  milestones(name: string): Trace {
    return { ...this.seen.get(name) };
  }

  /** The names of Terminals seen since `sinceMs` (their creation arrived after it). */
  createdSince(sinceMs: number): string[] {
    return [...this.seen].filter(([, m]) => (m["garden: Terminal created"] ?? 0) >= sinceMs).map(([n]) => n);
  }

  start(): void {
    const follow = <T extends Terminal | Pod>(client: Client, type: ResourceType<T>, opts: { namespace?: string; labelSelector?: string }, on: (o: T) => void): void => {
      const run = (): void => {
        void client
          .watch(type, opts, (ev) => ev.type !== "DELETED" && ev.type !== "BOOKMARK" && ev.type !== "ERROR" && on(ev.object), this.abort.signal)
          .catch(() => undefined)
          .finally(() => {
            if (!this.abort.signal.aborted) setTimeout(run, 100);
          });
      };
      run();
    };
    follow<Terminal>(this.garden, Terminals, { namespace: this.gardenNamespace }, (t) => {
      const at = Date.now();
      const name = t.metadata.name ?? "";
      if (t.spec?.identifier) this.byIdentifier.set(t.spec.identifier, name);
      for (const k of terminalMilestones(t)) this.mark(name, k, at);
    });
    follow<Pod>(this.host, Pods, { labelSelector: `${LABEL_COMPONENT}=${COMPONENT_TCM}` }, (p) => {
      const at = Date.now();
      const name = this.byIdentifier.get(p.metadata.labels?.[LABEL_IDENTIFIER] ?? "");
      if (name) for (const k of podMilestones(p)) this.mark(name, k, at);
    });
  }

  stop(): void {
    this.abort.abort();
  }
}

/**
 * The breakdown table: per milestone, the median time since the first milestone of the pane (the click
 * or `create sent`), the median and p95 step from the previous milestone present, and how many panes had it.
 */
export function breakdown(traces: Trace[]): (string | number)[][] {
  const rows: (string | number)[][] = [["milestone", "since start p50 ms", "step p50 ms", "step p95 ms", "n"]];
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  for (const k of MILESTONES) {
    const since: number[] = [];
    const steps: number[] = [];
    const i = MILESTONES.indexOf(k);
    for (const t of traces) {
      const at = t[k];
      const first = MILESTONES.find((m) => t[m] !== undefined);
      if (at === undefined || first === undefined) continue;
      since.push(at - t[first]!);
      const prev = MILESTONES.slice(0, i).reverse().find((p) => t[p] !== undefined);
      if (prev !== undefined) steps.push(at - t[prev]!);
    }
    if (since.length === 0) continue;
    rows.push([k, percentile(sorted(since), 50), steps.length ? percentile(sorted(steps), 50) : NaN, steps.length ? percentile(sorted(steps), 95) : NaN, since.length]);
  }
  return rows;
}
