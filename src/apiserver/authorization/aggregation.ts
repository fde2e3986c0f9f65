// ClusterRole aggregation ([k8s] pkg/controller/clusterroleaggregation): the `rules` of a
// ClusterRole with an aggregationRule are kept equal to the de-duplicated union of the rules of
// the ClusterRoles its selectors match (per selector, sorted by name, excluding itself). Any
// ClusterRole change re-evaluates every aggregated role; one pass runs at a time.
import type { ClusterRole, PolicyRule } from "../../apis/rbac/v1/types.ts";
import { type Clock, type Timer, realClock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { Reflector } from "./reflector.ts";
import { labelSelectorMatches } from "./rules.ts";

const CLUSTER_ROLES = { group: "rbac.authorization.k8s.io", resource: "clusterroles" };

export interface AggregationControllerOptions {
  clock?: Clock;
  onError?: (err: unknown) => void;
  /** Delay before retrying a failed pass. Default 1000 ms. */
  retryMs?: number;
}

export class ClusterRoleAggregationController {
  private readonly roles = new Map<string, ClusterRole>();
  private readonly reflector: Reflector<ClusterRole>;
  private readonly clock: Clock;
  private running: Promise<void> | undefined;
  private dirty = false;
  private started = false;
  private retry: Timer | undefined;

  constructor(
    private readonly client: InternalClient,
    private readonly opts: AggregationControllerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    const changed = () => this.schedule();
    this.reflector = new Reflector<ClusterRole>(
      client,
      CLUSTER_ROLES,
      {
        replace: (items) => {
          this.roles.clear();
          for (const r of items) this.roles.set(r.metadata.name ?? "", r);
          changed();
        },
        upsert: (r) => {
          this.roles.set(r.metadata.name ?? "", r);
          changed();
        },
        remove: (r) => {
          this.roles.delete(r.metadata.name ?? "");
          changed();
        },
      },
      { clock: this.clock, onError: opts.onError },
    );
  }

  /** Starts watching; the first pass runs right after the initial list. */
  async start(): Promise<void> {
    this.started = true;
    await this.reflector.start();
  }

  stop(): void {
    this.started = false;
    this.reflector.stop();
    this.retry?.cancel();
  }

  /** Resolves when no pass is running or pending (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private schedule(): void {
    if (!this.started) return;
    this.dirty = true;
    if (this.running) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop(): Promise<void> {
    while (this.dirty && this.started) {
      this.dirty = false;
      try {
        await this.syncAll();
      } catch (err) {
        this.opts.onError?.(err);
        this.retry?.cancel();
        this.retry = this.clock.setTimer(this.opts.retryMs ?? 1000, () => this.schedule());
        return;
      }
    }
  }

  private async syncAll(): Promise<void> {
    for (const role of [...this.roles.values()]) {
      const selectors = role.aggregationRule?.clusterRoleSelectors;
      if (!selectors) continue;
      const wanted = aggregateRules(role.metadata.name ?? "", selectors, [...this.roles.values()]);
      if (sameRules(wanted, role.rules ?? [])) continue;
      // A merge patch replaces the whole list, without a resourceVersion precondition: the
      // result only depends on the other roles, and the next event recomputes it anyway.
      await this.client.patch(CLUSTER_ROLES, undefined, role.metadata.name ?? "", "merge", { rules: wanted });
    }
  }
}

/** The aggregated rules for role `name` from all roles (pure; exported for tests and for on-read use). */
export function aggregateRules(
  name: string,
  selectors: NonNullable<NonNullable<ClusterRole["aggregationRule"]>["clusterRoleSelectors"]>,
  roles: ClusterRole[],
): PolicyRule[] {
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  const sorted = [...roles].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
  for (const sel of selectors) {
    for (const r of sorted) {
      if (r.metadata.name === name || !labelSelectorMatches(sel, r.metadata.labels)) continue;
      for (const rule of r.rules ?? []) {
        const key = canonicalRule(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(rule);
      }
    }
  }
  return out;
}

// Semantic equality as kube's: empty and absent lists are the same.
function canonicalRule(r: PolicyRule): string {
  const list = (xs: string[] | undefined) => (xs && xs.length > 0 ? xs : undefined);
  return JSON.stringify([r.verbs, list(r.apiGroups), list(r.resources), list(r.resourceNames), list(r.nonResourceURLs)]);
}

function sameRules(a: PolicyRule[], b: PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => canonicalRule(r) === canonicalRule(b[i]!));
}
