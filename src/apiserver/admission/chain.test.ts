import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newForbiddenMessage } from "../../apimachinery/errors.ts";
import type { InternalClient } from "../registry/client.ts";
import { widgetDefinition } from "../registry/generic/testing/fixtures.ts";
import { AdmissionChain } from "./chain.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";

const client = {} as InternalClient;

function attrs(): AdmissionAttributes {
  return {
    operation: "CREATE",
    resource: widgetDefinition(),
    subresource: "",
    namespace: "ns1",
    name: "w1",
    object: { metadata: { name: "w1" } },
    user: { username: "alice", groups: [] },
    dryRun: false,
  };
}

function recorder(name: string, log: string[], opts: { admit?: boolean; validate?: boolean; reject?: "admit" | "validate" } = {}): AdmissionPlugin {
  const plugin: AdmissionPlugin = { name };
  if (opts.admit !== false) {
    plugin.admit = async (a) => {
      log.push(`admit ${name}`);
      a.object!.metadata.labels = { ...a.object!.metadata.labels, [name]: "seen" };
      if (opts.reject === "admit") throw newForbiddenMessage(`${name} says no`);
    };
  }
  if (opts.validate !== false) {
    plugin.validate = async (a) => {
      log.push(`validate ${name} labels=${Object.keys(a.object!.metadata.labels ?? {}).join("+")}`);
      if (opts.reject === "validate") throw newForbiddenMessage(`${name} says no`);
    };
  }
  return plugin;
}

/** A plugin that answers at once (no promise) in both phases; `reject`: its validation refuses. */
function atOnce(name: string, log: string[], reject = false): AdmissionPlugin {
  return {
    name,
    admit: () => void log.push(`admit ${name}`),
    validate: () => {
      log.push(`validate ${name}`);
      if (reject) throw newForbiddenMessage(`${name} says no`);
    },
  };
}

describe("AdmissionChain", () => {
  it("runs every mutating phase in order, then every validating phase in order", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder("a", log), recorder("b", log, { admit: false }), recorder("c", log, { validate: false })]);
    assert.deepEqual(chain.names, ["a", "b", "c"]);
    const a = attrs();
    await chain.run(a, client);
    assert.deepEqual(log, ["admit a", "admit c", "validate a labels=a+c", "validate b labels=a+c"]);
  });

  it("stops at the first rejection", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder("a", log, { reject: "admit" }), recorder("b", log)]);
    await assert.rejects(chain.run(attrs(), client), (err: Error) => err.message === "a says no");
    assert.deepEqual(log, ["admit a"]);
    const log2: string[] = [];
    const chain2 = new AdmissionChain([recorder("a", log2, { reject: "validate" }), recorder("b", log2)]);
    await assert.rejects(async () => chain2.validate(attrs(), client), /a says no/);
    assert.deepEqual(log2, ["validate a labels="]);
  });

  it("plugins that answer at once (no promise) keep their place in the order, and their rejections stop the chain", async () => {
    const log: string[] = [];
    const now = (name: string, reject = false) => atOnce(name, log, reject);
    const chain = new AdmissionChain([now("a"), recorder("b", log), now("c", true), recorder("d", log)]);
    const pending = chain.run(attrs(), client);
    assert.ok(pending instanceof Promise, "a rejection at once still comes as a rejected promise");
    await assert.rejects(pending, /c says no/);
    assert.deepEqual(log, ["admit a", "admit b", "admit c", "admit d", "validate a", "validate b labels=b+d", "validate c"]);
  });

  it("an empty chain admits everything", async () => {
    const chain = new AdmissionChain([]);
    const a = attrs();
    await chain.run(a, client);
    assert.deepEqual(a.object, { metadata: { name: "w1" } });
    assert.equal(chain.admit(a, client), undefined);
  });

  it("a phase whose plugins all answer at once answers nothing to await, and rejects by throwing", () => {
    const log: string[] = [];
    const now = (name: string, reject = false) => atOnce(name, log, reject);
    assert.equal(new AdmissionChain([now("a"), now("b")]).admit(attrs(), client), undefined);
    assert.throws(() => new AdmissionChain([now("c", true), now("d")]).validate(attrs(), client), /c says no/);
    assert.deepEqual(log, ["admit a", "admit b", "validate c"]);
  });

  it("a phase goes on after a plugin's promise with the plugins after it, in order, and only then settles", async () => {
    const log: string[] = [];
    let release!: () => void;
    const slow: AdmissionPlugin = { name: "slow", admit: () => new Promise<void>((resolve) => (release = resolve)).then(() => void log.push("admit slow")) };
    const now: AdmissionPlugin = { name: "now", admit: () => void log.push("admit now") };
    const pending = new AdmissionChain([now, slow, now]).admit(attrs(), client);
    assert.ok(pending instanceof Promise);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    assert.deepEqual(log, ["admit now"]);
    assert.equal(settled, false);
    release();
    await pending;
    assert.deepEqual(log, ["admit now", "admit slow", "admit now"]);
  });
});
