// The webhook configurations in memory, kept current by a watch (docs/admission-webhooks.md#changes):
// a change is in effect as soon as its watch event arrives, typically within milliseconds.
import type { MutatingWebhook, Webhook } from "../../../apis/admissionregistration/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Reflector, type ReflectorHandler } from "../../authorization/reflector.ts";
import type { InternalClient } from "../../registry/client.ts";

export interface ConfiguredWebhook<W extends Webhook = Webhook> {
  /** The configuration's name. */
  configuration: string;
  webhook: W;
}

/** One kind's configurations by name, flattened in order: configurations by name, webhooks in order. */
class ConfigSet<W extends Webhook> implements ReflectorHandler<KubeObject> {
  private readonly byName = new Map<string, KubeObject>();
  private flat: ConfiguredWebhook<W>[] = [];

  get webhooks(): readonly ConfiguredWebhook<W>[] {
    return this.flat;
  }

  replace(items: KubeObject[]): void {
    this.byName.clear();
    for (const o of items) this.byName.set(o.metadata.name ?? "", o);
    this.rebuild();
  }

  upsert(o: KubeObject): void {
    this.byName.set(o.metadata.name ?? "", o);
    this.rebuild();
  }

  remove(o: KubeObject): void {
    this.byName.delete(o.metadata.name ?? "");
    this.rebuild();
  }

  private rebuild(): void {
    const names = [...this.byName.keys()].sort();
    this.flat = names.flatMap((n) => ((this.byName.get(n)!.webhooks ?? []) as W[]).map((webhook) => ({ configuration: n, webhook })));
  }
}

export class WebhookConfigurations {
  readonly mutating = new ConfigSet<MutatingWebhook>();
  readonly validating = new ConfigSet<Webhook>();
  private reflectors: Reflector<KubeObject>[] = [];

  /** Lists and watches both kinds; resolves once both are listed. */
  async start(client: InternalClient, opts: { clock?: Clock; onError?: (err: unknown) => void } = {}): Promise<void> {
    const gr = (resource: string) => ({ group: "admissionregistration.k8s.io", resource });
    this.reflectors = [
      new Reflector(client, gr("mutatingwebhookconfigurations"), this.mutating, opts),
      new Reflector(client, gr("validatingwebhookconfigurations"), this.validating, opts),
    ];
    await Promise.all(this.reflectors.map((r) => r.start()));
  }

  stop(): void {
    for (const r of this.reflectors) r.stop();
    this.reflectors = [];
  }
}
