import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { newNotFound } from "../../../apimachinery/errors.ts";
import type { Secret } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { desiredOSCSecrets, syncOSCSecrets } from "./oscsecrets.ts";

const shoot = { metadata: { namespace: "garden-p", name: "s", uid: "u" }, spec: { provider: { type: "local", workers: [{ name: "w" }] } } } as unknown as Shoot;

/** A client over a map of Secrets by name that records every call. */
function fakeClient(stored: Map<string, Secret>) {
  const calls: string[] = [];
  const client = {
    get: (_t: unknown, key: { name: string }) => {
      calls.push(`get ${key.name}`);
      const s = stored.get(key.name);
      return s ? Promise.resolve(structuredClone(s)) : Promise.reject(newNotFound({ group: "", resource: "secrets" }, key.name));
    },
    update: (_t: unknown, s: Secret) => {
      calls.push(`update ${s.metadata.name}`);
      stored.set(s.metadata.name!, s);
      return Promise.resolve(s);
    },
    create: (_t: unknown, s: Secret) => {
      calls.push(`create ${s.metadata.name}`);
      stored.set(s.metadata.name!, s);
      return Promise.resolve(s);
    },
    list: () => {
      calls.push("list");
      return Promise.resolve({ metadata: {}, items: [...stored.values()] });
    },
    delete: (_t: unknown, key: { name: string }) => {
      calls.push(`delete ${key.name}`);
      stored.delete(key.name);
      return Promise.resolve();
    },
  } as unknown as Client;
  return { client, calls };
}

describe("syncOSCSecrets with the shoot cache", () => {
  const signal = new AbortController().signal;
  const v1 = desiredOSCSecrets(shoot, ["ssh-rsa AAAA1"]);
  const v2 = desiredOSCSecrets(shoot, ["ssh-rsa AAAA2", "ssh-rsa AAAA1"]);
  const name = v1[0]!.secretName;

  it("neither reads nor writes a Secret the cache shows up to date", async () => {
    const { client, calls } = fakeClient(new Map([[name, v1[0]!.secret]]));
    assert.deepEqual(await syncOSCSecrets(client, v1, signal, [v1[0]!.secret]), { written: [], deleted: [] });
    assert.deepEqual(calls, []);
  });

  it("reads a Secret live before writing it when the cache shows it outdated, and skips the write when it is current", async () => {
    const stored = new Map([[name, { ...v1[0]!.secret, metadata: { ...v1[0]!.secret.metadata, resourceVersion: "5" } }]]);
    const { client, calls } = fakeClient(stored);
    assert.deepEqual((await syncOSCSecrets(client, v2, signal, [v1[0]!.secret])).written, [name]);
    assert.deepEqual(calls, [`get ${name}`, `update ${name}`]);
    assert.equal(stored.get(name)!.metadata.resourceVersion, "5", "the update carries the live resourceVersion");
    calls.length = 0;
    // The cache has not seen that write yet: a live read finds it current.
    assert.deepEqual((await syncOSCSecrets(client, v2, signal, [v1[0]!.secret])).written, []);
    assert.deepEqual(calls, [`get ${name}`]);
  });

  it("deletes OSC Secrets the cache lists that are no longer wanted; without a cache it lists live", async () => {
    const other: Secret = { ...v1[0]!.secret, metadata: { ...v1[0]!.secret.metadata, name: "gardener-node-agent-gone-1" } };
    const { client, calls } = fakeClient(new Map([[name, v1[0]!.secret], ["gardener-node-agent-gone-1", other]]));
    assert.deepEqual((await syncOSCSecrets(client, v1, signal, [v1[0]!.secret, other])).deleted, ["gardener-node-agent-gone-1"]);
    assert.deepEqual(calls, ["delete gardener-node-agent-gone-1"]);
    calls.length = 0;
    await syncOSCSecrets(client, v1, signal);
    assert.deepEqual(calls, [`get ${name}`, "list"]);
  });
});
