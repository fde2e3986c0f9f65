// The caps on Terminals (docs/terminals.md#caps), checked by the validating webhook on CREATE:
// at most maxTerminalsPerUser Terminals created by one user and maxTerminals in all (0 disables a
// cap). Counted are the Terminals not being deleted in the controller's cache, plus those this
// webhook admitted in the last 10 s that the cache has not shown yet, so a burst of creates cannot
// slip past the cap while the cache catches up; one the cache has shown counts only while it is there.
import { ANNOTATION_CREATED_BY, type Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import type { Clock } from "../../utils/clock.ts";

export const DEFAULT_MAX_TERMINALS_PER_USER = 10;
export const DEFAULT_MAX_TERMINALS = 100;
const RECENT_MS = 10_000;

export interface CapsConfig {
  maxTerminalsPerUser?: number;
  maxTerminals?: number;
}

export class Caps {
  /** Admitted creates not yet old enough to be surely in the cache: key -> creator and time. */
  private readonly recent = new Map<string, { user: string; atMs: number }>();

  constructor(
    private readonly list: () => Promise<Terminal[]>,
    private readonly clock: Clock,
    private readonly config: CapsConfig,
  ) {}

  /** The denial message, or undefined (and the create is remembered) when within the caps. */
  async admit(key: string, user: string): Promise<string | undefined> {
    const perUser = this.config.maxTerminalsPerUser ?? DEFAULT_MAX_TERMINALS_PER_USER;
    const total = this.config.maxTerminals ?? DEFAULT_MAX_TERMINALS;
    const now = this.clock.nowMs();
    for (const [k, v] of this.recent) if (now - v.atMs > RECENT_MS) this.recent.delete(k);
    const cached = await this.list();
    // Once the cache shows an admitted create (even being deleted), the cache alone counts it: a Terminal
    // opened and closed within the window no longer holds a place once it is gone.
    for (const t of cached) this.recent.delete(`${t.metadata.namespace}/${t.metadata.name}`);
    const live = cached.filter((t) => !t.metadata.deletionTimestamp);
    const pending = [...this.recent.values()];
    const mine = live.filter((t) => t.metadata.annotations?.[ANNOTATION_CREATED_BY] === user).length + pending.filter((p) => p.user === user).length;
    if (perUser > 0 && mine >= perUser) return `terminal limit reached: user ${user} already has ${mine} terminals (maximum ${perUser})`;
    const all = live.length + pending.length;
    if (total > 0 && all >= total) return `terminal limit reached: ${all} terminals exist (maximum ${total})`;
    // Bounded: one entry per admitted create within the window, and the total cap bounds those.
    if (this.recent.size < 10_000) this.recent.set(key, { user, atMs: now });
    return undefined;
  }
}
