// Watches inside each shoot (docs/maintenance-and-rotation.md): its Nodes and its OSC Secrets, in a
// cache per shoot API server, every event mapped to the Shoot's key, so the gate and completion are
// re-evaluated as soon as a node reports. Started on a shoot's first pass, stopped when it goes.
import type { Logger } from "pino";
import type { Node } from "../../../apis/core/v1/types.ts";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, LABEL_NODE_AGENT_SECRET_NAME, LABEL_ROLE, LABEL_WORKER_POOL, OSC_NAMESPACE, ROLE_OSC } from "../../../api/gardencore/osc.ts";
import { Nodes, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { type ObjectKey, keyString, parseKey } from "../../../client/resource.ts";
import { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { Clock } from "../../../utils/clock.ts";

export { Nodes };

/** A Node change that matters: its reported checksum, pool, followed Secret or deletion. */
export function nodeChanged(o: Node, n: Node): boolean {
  const a = o.metadata;
  const b = n.metadata;
  return (
    a.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] !== b.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] ||
    a.labels?.[LABEL_WORKER_POOL] !== b.labels?.[LABEL_WORKER_POOL] ||
    a.labels?.[LABEL_NODE_AGENT_SECRET_NAME] !== b.labels?.[LABEL_NODE_AGENT_SECRET_NAME] ||
    a.deletionTimestamp !== b.deletionTimestamp
  );
}

interface Watched {
  client: Client;
  cache: Cache;
  removers: (() => void)[];
}

export class ShootWatches {
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly o: {
      enqueue: (key: ObjectKey) => void;
      /** A Node's update that matters (completion.ts); default: enqueue. Adds and deletes always enqueue. */
      nodeChanged?: (key: ObjectKey, cache: Cache) => void;
      clock: Clock;
      logger?: Logger;
    },
  ) {}

  /** The shoot's cache (Nodes; OSC Secrets in kube-system), started on first use. */
  ensure(key: ObjectKey, client: Client): Cache {
    const id = keyString(key);
    const existing = this.watched.get(id);
    if (existing?.client === client) return existing.cache;
    if (existing) void this.stop(key);
    const cache = new Cache(client, { clock: this.o.clock, logger: this.o.logger?.child({ shoot: id }) });
    cache.configure(Secrets, { namespace: OSC_NAMESPACE, labelSelector: `${LABEL_ROLE}=${ROLE_OSC}` });
    const enqueue = (): void => this.o.enqueue(key);
    const changed = this.o.nodeChanged ? (): void => this.o.nodeChanged?.(key, cache) : enqueue;
    const removers = [
      cache.informerFor(Nodes).addEventHandler({ onAdd: enqueue, onDelete: enqueue, onUpdate: (a, b) => void (nodeChanged(a, b) && changed()) }),
      cache.informerFor(Secrets).addEventHandler({ onAdd: enqueue, onDelete: enqueue, onUpdate: enqueue }),
    ];
    cache.start();
    this.watched.set(id, { client, cache, removers });
    return cache;
  }

  async stop(key: ObjectKey): Promise<void> {
    const id = keyString(key);
    const w = this.watched.get(id);
    if (!w) return;
    this.watched.delete(id);
    for (const r of w.removers) r();
    await w.cache.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.watched.keys()].map((id) => this.stop(parseKey(id))));
  }
}

