// The admission chain: every plugin's mutating `admit` in order, then every plugin's `validate`
// in order. The first rejection (a thrown StatusError) stops the chain.
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";

/**
 * What the object stores call; AdmissionChain is the implementation. A phase answers nothing when
 * every plugin was done at once (most plugins concern few kinds, and every write passes all of
 * them), so a caller awaits only real work: `const pending = admission.admit(...); if (pending) await pending;`.
 */
export interface Admission {
  /** Mutating phase: plugins may change attrs.object in place. */
  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void;
  /** Validating phase: plugins may only reject. */
  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void;
}

type Phase = "admit" | "validate";

export class AdmissionChain implements Admission {
  private readonly plugins: readonly AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.plugins = [...plugins];
  }

  /** Plugin names in order (for logs and tests). */
  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    return this.from(0, "admit", attrs, client);
  }

  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    return this.from(0, "validate", attrs, client);
  }

  /** Runs the phase from plugin `i` on; synchronously until a plugin answers a promise. */
  private from(i: number, phase: Phase, attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    for (; i < this.plugins.length; i++) {
      const pending = this.plugins[i]![phase]?.(attrs, client);
      if (pending) return this.rest(pending, i + 1, phase, attrs, client);
    }
  }

  private async rest(pending: Promise<void>, i: number, phase: Phase, attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    await pending;
    await this.from(i, phase, attrs, client);
  }

  /** Both phases, for callers without a step in between (e.g. CONNECT). */
  async run(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    await this.admit(attrs, client);
    await this.validate(attrs, client);
  }
}

/** A chain with no plugins. */
export const noAdmission: Admission = new AdmissionChain([]);
