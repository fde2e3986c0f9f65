import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../../apis/core/v1/pod.ts";
import type { Client } from "../../client/client.ts";
import { FakeClock } from "../../utils/clock.ts";
import { TokenManager } from "./tokens.ts";

const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u1" }, spec: { containers: [] } };

/** A client whose token endpoint grants `granted` seconds and stamps an expiry on a clock far from the kubelet's. */
function fakeClient(granted: number): { client: Client; requests: number } {
  const state = { requests: 0, client: undefined as unknown as Client };
  state.client = {
    transport: {
      request: async () => {
        state.requests++;
        return { spec: { expirationSeconds: granted }, status: { token: `t${state.requests}`, expirationTimestamp: "2000-01-01T00:00:00Z" } };
      },
    },
  } as unknown as Client;
  return state;
}

test("a token is requested anew at 80 % of the lifetime the server granted, on the kubelet's clock whatever the server's says", async () => {
  const clock = new FakeClock();
  const c = fakeClient(1000);
  const tokens = new TokenManager(c.client, clock);
  const projection = { path: "token", expirationSeconds: 3600 };
  assert.equal(await tokens.token(pod, "default", projection), "t1");
  clock.step(799_000);
  assert.equal(await tokens.token(pod, "default", projection), "t1", "cached before 80 % of the granted 1000 s");
  clock.step(1_000);
  assert.equal(await tokens.token(pod, "default", projection), "t2", "requested anew at 80 %, though the server's expiry lies in the past of our clock");
  tokens.forget("u1");
  assert.equal(await tokens.token(pod, "default", projection), "t3", "a forgotten pod's token is requested anew");
  assert.equal(c.requests, 3);
});
