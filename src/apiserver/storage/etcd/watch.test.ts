import assert from "node:assert/strict";
import { test } from "node:test";
import type { StorageEvent } from "../interface.ts";
import type { EtcdKvClient } from "./kv-client.ts";
import { watchEtcd } from "./watch.ts";
import type { WatchResponse } from "./watch-stream.ts";

/** A client whose one watch stream the test feeds by hand. */
function fakeClient(): { client: EtcdKvClient; respond(res: WatchResponse): void } {
  let onResponse: ((res: WatchResponse) => void) | undefined;
  const client = {
    watch(_create: unknown, on: (res: WatchResponse) => void) {
      onResponse = on;
      return { close() {} };
    },
  } as unknown as EtcdKvClient;
  return { client, respond: (res) => onResponse!(res) };
}

function put(rev: number, key: string, bytes: number): WatchResponse["events"][number] {
  return { type: 0, kv: { key: Buffer.from(key), value: Buffer.alloc(bytes, 120), create_revision: rev, mod_revision: rev } };
}

const response = (...events: WatchResponse["events"]): WatchResponse => ({ created: false, canceled: false, compact_revision: 0, cancel_reason: "", events });
const turn = () => new Promise((r) => setImmediate(r));

test("responses of small values are delivered as they come; after one with large values the next waits a turn; one response stays together", async () => {
  const { client, respond } = fakeClient();
  const got: number[][] = [];
  const h = watchEtcd(client, "", "/k/", 0, (events: StorageEvent[]) => got.push(events.map((e) => e.kv.modRevision)), () => assert.fail("no error"));
  respond(response(put(1, "/k/a", 10)));
  respond(response(put(2, "/k/b", 10), put(2, "/k/c", 10)));
  assert.deepEqual(got, [[1], [2, 2]], "small responses: at once, a revision's events together");
  // Two large responses arriving in one turn (one network read): the second waits for the next turn.
  respond(response(put(3, "/k/a", 300_000)));
  respond(response(put(4, "/k/b", 300_000)));
  respond(response(put(5, "/k/c", 10)));
  assert.deepEqual(got, [[1], [2, 2], [3]]);
  await turn();
  assert.deepEqual(got, [[1], [2, 2], [3], [4]]);
  await turn();
  assert.deepEqual(got, [[1], [2, 2], [3], [4], [5]], "in order, none lost");
  // Stopped with a response still waiting: it is never delivered.
  respond(response(put(6, "/k/a", 300_000)));
  respond(response(put(7, "/k/b", 10)));
  h.stop();
  await turn();
  assert.deepEqual(got.at(-1), [6]);
  assert.equal(got.length, 6);
});

test("what waits for its turn is bounded: past 16 MiB of values everything waiting is delivered at once", () => {
  const { client, respond } = fakeClient();
  const got: number[] = [];
  const h = watchEtcd(client, "", "/k/", 0, (events: StorageEvent[]) => got.push(...events.map((e) => e.kv.modRevision)), () => assert.fail("no error"));
  const mb = 1024 * 1024;
  respond(response(put(1, "/k/a", 6 * mb)));
  respond(response(put(2, "/k/b", 6 * mb)));
  respond(response(put(3, "/k/c", 6 * mb)));
  assert.deepEqual(got, [1], "12 MiB wait for their turns");
  respond(response(put(4, "/k/d", 6 * mb)));
  assert.deepEqual(got, [1, 2, 3, 4], "18 MiB would wait: all of it is delivered now, in order");
  h.stop();
});
