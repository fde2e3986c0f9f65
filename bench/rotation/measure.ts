// One rotation after another, each timed from the request (the operation annotation) to: the new OSC
// Secret in the shoot (key generation and the gardenlet's pass), `lastCompletionTime` (seen on a watch of
// the Shoot), and every node's authorized_keys holding the new key first and the previous one second
// (the files, polled every 5 ms). Works on any set of nodes whose authorized_keys the caller can read.
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_CHECKSUM_DATA_SCRIPT, LABEL_ROLE, OSC_NAMESPACE, ROLE_OSC } from "../../src/api/gardencore/osc.ts";
import type { Node } from "../../src/apis/core/v1/types.ts";
import { sshKeypairRotation } from "../../src/api/gardencore/rotation.ts";
import type { Shoot } from "../../src/apis/gardencore/v1beta1/types.ts";
import { Nodes, type Secret, Secrets } from "../../src/client/builtins.ts";
import type { Client } from "../../src/client/client.ts";
import { Shoots } from "../../src/client/garden.ts";
import type { ObjectKey } from "../../src/client/resource.ts";


export interface RotationTarget {
  /** Reads and watches the Shoot. */
  garden: Client;
  /** Requests the rotation (e.g. the project member). */
  requester: Client;
  shoot: ObjectKey;
  /** Watches the OSC Secrets of the shoot. */
  shootClient: Client;
  /** Every node's `/home/gardener/.ssh/authorized_keys` (undefined when unreadable). */
  nodeKeys(): (string | undefined)[];
}

export interface RotationSample {
  /** request -> the OSC Secret with the new key written (includes key generation) */
  toOSC: number;
  /** OSC written -> lastCompletionTime observed */
  oscToComplete: number;
  toComplete: number;
  toNodes: number;
  /** OSC written -> every node's authorized_keys updated */
  oscToNodes: number;
  /** OSC written -> every Node reports the new checksum (seen on a watch of the Nodes); NaN when they never agree */
  oscToReported: number;
}

const firstLine = (s: string): string => s.split("\n")[0] ?? "";

/** Resolves with the time of the first watch event for which `done` holds; the watch ends with `signal`. */
function firstEvent<T extends Shoot | Secret>(client: Client, type: typeof Shoots | typeof Secrets, opts: { namespace: string; fieldSelector?: string; resourceVersion: string }, done: (o: T) => boolean, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = false;
    client
      .watch(type as never, opts, (ev: { type: string; object: unknown }) => {
        if (!seen && (ev.type === "ADDED" || ev.type === "MODIFIED") && done(ev.object as T)) {
          seen = true;
          resolve(performance.now());
        }
      }, signal)
      .then(() => seen || signal.aborted || reject(new Error(`the watch of ${type.plural} ended early`)), (err: unknown) => seen || signal.aborted || reject(err));
  });
}

async function withTimeout<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function pollNodes(t: RotationTarget, previous: string, signal: AbortSignal): Promise<number> {
  for (;;) {
    if (signal.aborted) throw new Error("aborted");
    const keys = t.nodeKeys();
    const news = new Set(keys.map((k) => (k !== undefined && k.endsWith(`\n${previous}`) ? firstLine(k) : previous)));
    if (keys.length > 0 && news.size === 1 && !news.has(previous)) return performance.now();
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resolves with the time every Node (as many as `count`) reports one checksum that none reported before. */
async function allReported(client: Client, count: number, signal: AbortSignal): Promise<{ start: () => void; done: Promise<number> }> {
  const list = await client.list(Nodes, {});
  const before = new Set(list.items.map((n) => n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG]));
  const now = new Map(list.items.map((n) => [n.metadata.name ?? "", n.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG]]));
  let resolve!: (t: number) => void;
  const done = new Promise<number>((r) => (resolve = r));
  const start = (): void =>
    void client.watch(Nodes, { resourceVersion: list.metadata.resourceVersion! }, (ev: { type: string; object: Node }) => {
      if (ev.type === "DELETED") now.delete(ev.object.metadata.name ?? "");
      else now.set(ev.object.metadata.name ?? "", ev.object.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG]);
      const values = new Set(now.values());
      const [only] = values;
      if (now.size >= count && values.size === 1 && !before.has(only)) resolve(performance.now());
    }, signal).catch(() => undefined);
  return { start, done };
}

export async function measureRotation(t: RotationTarget, timeoutMs = 120_000): Promise<RotationSample> {
  const shoot = await t.garden.get(Shoots, t.shoot);
  const before = sshKeypairRotation(shoot)?.lastInitiationTime;
  const keys = t.nodeKeys();
  if (keys.length === 0 || keys.some((k) => k === undefined || firstLine(k) !== firstLine(keys[0]!))) throw new Error("the nodes do not agree on the current key before the rotation");
  const previous = firstLine(keys[0]!);
  const osc = await t.shootClient.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: `${LABEL_ROLE}=${ROLE_OSC}` });
  const ac = new AbortController();
  try {
    const completed = firstEvent<Shoot>(t.garden, Shoots, { namespace: t.shoot.namespace!, fieldSelector: `metadata.name=${t.shoot.name}`, resourceVersion: shoot.metadata.resourceVersion! }, (s) => {
      const r = sshKeypairRotation(s);
      return !!r?.lastInitiationTime && r.lastInitiationTime !== before && !!r.lastCompletionTime && Date.parse(r.lastCompletionTime) >= Date.parse(r.lastInitiationTime);
    }, ac.signal);
    // Before the request the OSC is stable: its first change afterwards carries the new key.
    const checksums = new Set(osc.items.map((s) => s.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT]));
    const oscWritten = firstEvent<Secret>(t.shootClient, Secrets, { namespace: OSC_NAMESPACE, resourceVersion: osc.metadata.resourceVersion! }, (s) =>
      s.metadata.labels?.[LABEL_ROLE] === ROLE_OSC && !checksums.has(s.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT]), ac.signal);
    const reported = await allReported(t.shootClient, keys.length, ac.signal);
    reported.start();
    const t0 = performance.now();
    await t.requester.patch(Shoots, t.shoot, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "rotate-ssh-keypair" } } } });
    const [tOSC, tComplete, tNodes] = await withTimeout("the rotation", Promise.all([oscWritten, completed, pollNodes(t, previous, ac.signal)]), timeoutMs);
    // Nodes that follow another configuration never agree: NaN then (not counted).
    const tReported = await Promise.race([reported.done, new Promise<number>((r) => setTimeout(() => r(Number.NaN), 2000))]);
    return { toOSC: tOSC - t0, oscToComplete: tComplete - tOSC, toComplete: tComplete - t0, toNodes: tNodes - t0, oscToNodes: tNodes - tOSC, oscToReported: tReported - tOSC };
  } finally {
    ac.abort();
  }
}
