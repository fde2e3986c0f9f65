// The admission chain: every plugin's mutating `admit` in order, then every plugin's `validate`
// in order. The first rejection (a thrown StatusError) stops the chain.
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";

/** What the object stores call; AdmissionChain is the implementation. */
export interface Admission {
  /** Mutating phase: plugins may change attrs.object in place. */
  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void>;
  /** Validating phase: plugins may only reject. */
  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void>;
}

export class AdmissionChain implements Admission {
  private readonly plugins: readonly AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.plugins = [...plugins];
  }

  /** Plugin names in order (for logs and tests). */
  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  // A plugin that is done at once is not awaited: most plugins concern few kinds, and every write passes all of them.
  async admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    for (const p of this.plugins) {
      const pending = p.admit?.(attrs, client);
      if (pending) await pending;
    }
  }

  async validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    for (const p of this.plugins) {
      const pending = p.validate?.(attrs, client);
      if (pending) await pending;
    }
  }

  /** Both phases, for callers without a step in between (e.g. CONNECT). */
  async run(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    await this.admit(attrs, client);
    await this.validate(attrs, client);
  }
}

/** A chain with no plugins. */
export const noAdmission: Admission = new AdmissionChain([]);
