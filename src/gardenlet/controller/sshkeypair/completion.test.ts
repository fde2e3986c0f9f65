import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, LABEL_WORKER_POOL } from "../../../api/gardencore/osc.ts";
import type { Node } from "../../../apis/core/v1/types.ts";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../../../client/client.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { DirectCompletion, type Waiting, sameDesired } from "./completion.ts";

const KEY: ObjectKey = { namespace: "garden-p", name: "s" };
const INITIATION = "2026-01-01T00:00:10Z";

function shoot(over: { generation?: number; initiation?: string; completion?: string; sshAccess?: boolean } = {}): Shoot {
  return {
    metadata: { namespace: "garden-p", name: "s", resourceVersion: "7", generation: over.generation ?? 3 },
    spec: { provider: { type: "local", workers: [{ name: "w" }], ...(over.sshAccess === false ? { workersSettings: { sshAccess: { enabled: false } } } : {}) } },
    status: { credentials: { rotation: { sshKeypair: { lastInitiationTime: over.initiation ?? INITIATION, ...(over.completion ? { lastCompletionTime: over.completion } : {}) } } } },
  } as unknown as Shoot;
}

const node = (name: string, checksum: string | undefined): Node => ({
  metadata: { name, labels: { [LABEL_WORKER_POOL]: "w" }, annotations: checksum ? { [ANNOTATION_CHECKSUM_CLOUD_CONFIG]: checksum } : {} },
});

const waiting: Waiting = { initiation: INITIATION, generation: 3, desired: [{ pool: "w", secretName: "osc-w", checksum: "new" }] };

describe("completing a rotation from the Node report that completes it", () => {
  let live: Shoot;
  let nodes: Node[];
  let enqueued: number;
  let patches: { key: ObjectKey; body: unknown }[];
  let failPatch: boolean;
  let dc: DirectCompletion;
  const cache = { informerFor: () => ({ store: { list: () => nodes } }) } as unknown as Cache;

  beforeEach(() => {
    live = shoot();
    nodes = [node("n1", "new"), node("n2", "old")];
    enqueued = 0;
    patches = [];
    failPatch = false;
    const client = {
      get: () => Promise.resolve(live),
      patchStatus: (_t: unknown, key: ObjectKey, p: { body: unknown }) => {
        if (failPatch) return Promise.reject(new Error("conflict"));
        patches.push({ key, body: p.body });
        return Promise.resolve(live);
      },
    } as unknown as Client;
    dc = new DirectCompletion({ gardenClient: client, clock: new FakeClock(Date.parse("2026-01-01T00:00:12Z")), enqueue: () => enqueued++ });
  });

  it("without a record every Node change starts a pass", async () => {
    dc.nodeChanged(KEY, cache);
    await dc.settled();
    assert.equal(enqueued, 1);
    assert.equal(patches.length, 0);
  });

  it("while nodes are outstanding a report does nothing; the one that completes the set writes lastCompletionTime with the resourceVersion it read", async () => {
    dc.set(KEY, waiting);
    dc.nodeChanged(KEY, cache);
    await dc.settled();
    assert.equal(enqueued, 0, "no pass while waiting");
    assert.equal(patches.length, 0);
    nodes = [node("n1", "new"), node("n2", "new")];
    dc.nodeChanged(KEY, cache);
    await dc.settled();
    assert.equal(enqueued, 0);
    assert.deepEqual(patches, [{ key: KEY, body: { metadata: { resourceVersion: "7" }, status: { credentials: { rotation: { sshKeypair: { lastCompletionTime: "2026-01-01T00:00:12Z" } } } } } }]);
    assert.equal(dc.get(KEY), undefined, "the record is used once");
    dc.nodeChanged(KEY, cache);
    assert.equal(enqueued, 1, "later changes start passes again");
  });

  for (const [what, changed] of [
    ["a different rotation", () => shoot({ initiation: "2026-01-01T00:00:11Z" })],
    ["a changed spec (generation)", () => shoot({ generation: 4 })],
    ["a completed rotation", () => shoot({ completion: "2026-01-01T00:00:11Z" })],
    ["SSH access off", () => shoot({ sshAccess: false })],
  ] as const) {
    it(`a Shoot that no longer waits for the recorded rotation (${what}) gets a pass, no write`, async () => {
      dc.set(KEY, waiting);
      live = changed();
      nodes = [node("n1", "new"), node("n2", "new")];
      dc.nodeChanged(KEY, cache);
      await dc.settled();
      assert.equal(patches.length, 0);
      assert.equal(enqueued, 1);
    });
  }

  it("a failed write falls back to a pass", async () => {
    dc.set(KEY, waiting);
    failPatch = true;
    nodes = [node("n1", "new"), node("n2", "new")];
    dc.nodeChanged(KEY, cache);
    await dc.settled();
    assert.equal(enqueued, 1);
  });

  it("a pass keeps the record while it computes the same desired OSCs, and drops it for others", () => {
    assert.ok(sameDesired(waiting, [{ pool: "w", secretName: "osc-w", checksum: "new" }]));
    assert.ok(!sameDesired(waiting, [{ pool: "w", secretName: "osc-w", checksum: "newer" }]), "another checksum");
    assert.ok(!sameDesired(waiting, [{ pool: "w", secretName: "osc-w", checksum: "new" }, { pool: "v", secretName: "osc-v", checksum: "new" }]), "another pool");
    dc.set(KEY, waiting);
    dc.keepIf(KEY, (w) => sameDesired(w, [{ pool: "w", secretName: "osc-w", checksum: "new" }]));
    assert.equal(dc.get(KEY), waiting);
    dc.keepIf(KEY, (w) => sameDesired(w, [{ pool: "w", secretName: "osc-w", checksum: "newer" }]));
    assert.equal(dc.get(KEY), undefined);
  });

  it("take drops the record and waits for a direct completion in flight", async () => {
    assert.equal(await dc.take(KEY), false, "nothing in flight");
    dc.set(KEY, waiting);
    nodes = [node("n1", "new"), node("n2", "new")];
    dc.nodeChanged(KEY, cache);
    assert.equal(await dc.take(KEY), true);
    assert.equal(patches.length, 1, "the direct completion wrote before take returned");
    assert.equal(await dc.take(KEY), false, "and it is over");
    dc.set(KEY, waiting);
    assert.equal(await dc.take(KEY), false);
    assert.equal(dc.get(KEY), undefined, "take drops the record");
  });
});
