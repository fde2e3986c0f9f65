// A node identity's access to the OSC Secrets (docs/node-bootstrap.md#osc-secrets) against a real
// in-process API server with its default `Node,RBAC` authorization: the gardenlet's Role lets
// `system:node:x` get, list and watch (by `metadata.name`) exactly the pools' OSC Secrets and no other
// Secret of kube-system; a Secret that is no longer an OSC Secret drops out of it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OSC_NAMESPACE } from "../../../src/api/gardencore/osc.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { isForbidden } from "../../../src/apimachinery/errors.ts";
import { Roles, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { OSC_ACCESS_NAME, oscAccessRules, syncOSCAccess } from "../../../src/gardenlet/controller/sshkeypair/oscaccess.ts";
import { desiredOSCSecrets, syncOSCSecrets } from "../../../src/gardenlet/controller/sshkeypair/oscsecrets.ts";
import { ensureClientKubeconfig } from "../../../src/nodeagent/bootstrap/client.ts";
import { eventually } from "../../support/http.ts";
import { type Env, startEnv, whoami } from "./support.ts";

const shoot = (workers: string[]): Shoot => ({ metadata: { name: "s", namespace: "garden-p" }, spec: { provider: { type: "local", workers: workers.map((name) => ({ name })) } } }) as unknown as Shoot;

/** "ok", "forbidden" or the unexpected error. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    if (isForbidden(err)) return "forbidden";
    throw err;
  }
}

describe("node access to the OSC Secrets", () => {
  let env: Env;
  let node: Client;
  const signal = new AbortController().signal;
  before(async () => {
    env = await startEnv();
    const t = await env.bootstrapToken(new Date(env.clock.nowMs() + 3600_000));
    const kubeconfig = join(env.dir, "x.kubeconfig");
    // The Node authorizer lets the new identity create and watch its CSR: no extra binding needed.
    await ensureClientKubeconfig({ nodeName: "x", kubeconfig, bootstrapKubeconfig: t.kubeconfig, clock: env.clock, timeoutMs: 20_000 });
    node = Client.fromKubeconfigFile(kubeconfig);
    assert.equal((await whoami(node)).username, "system:node:x");
  });
  after(async () => {
    node?.close();
    await env?.stop();
  });

  it("reads exactly the pools' OSC Secrets, by name, and no other Secret", async () => {
    const desired = desiredOSCSecrets(shoot(["a", "b"]), ["ssh-rsa AAAA k"]);
    await syncOSCSecrets(env.admin, desired, signal);
    await env.admin.create(Secrets, { metadata: { namespace: OSC_NAMESPACE, name: "other" }, type: "Opaque", data: { k: "dg==" } });
    assert.equal(await syncOSCAccess(env.admin, desired.map((d) => d.secretName), signal), true);
    assert.equal(await syncOSCAccess(env.admin, desired.map((d) => d.secretName), signal), false, "a second pass writes nothing");
    const [a, b] = desired.map((d) => d.secretName) as [string, string];
    await eventually("RBAC allows the node its OSC Secret", async () => ((await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: a }))) === "ok" ? true : undefined));
    assert.equal(await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: b })), "ok");
    const listed = await node.list(Secrets, { namespace: OSC_NAMESPACE, fieldSelector: `metadata.name=${a}` });
    assert.deepEqual(listed.items.map((s) => s.metadata.name), [a]);
    // A watch by name delivers the Secret.
    const ac = new AbortController();
    const seen: string[] = [];
    const watching = node.watch(Secrets, { namespace: OSC_NAMESPACE, fieldSelector: `metadata.name=${a}`, resourceVersion: "0", timeoutSeconds: 5 }, (ev) => {
      seen.push(`${ev.type} ${(ev.object as { metadata?: { name?: string } }).metadata?.name}`);
      ac.abort();
    }, ac.signal).catch((err: unknown) => (ac.signal.aborted ? undefined : Promise.reject(err)));
    await watching;
    assert.deepEqual(seen, [`ADDED ${a}`]);
    // Anything else in kube-system is refused: another Secret, the bootstrap token, listing all, writing.
    assert.equal(await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: "other" })), "forbidden");
    assert.equal(await outcome(node.list(Secrets, { namespace: OSC_NAMESPACE })), "forbidden");
    assert.equal(await outcome(node.list(Secrets, { namespace: OSC_NAMESPACE, fieldSelector: "metadata.name=other" })), "forbidden");
    assert.equal(await outcome(node.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: "gardener.cloud/role=operating-system-config" })), "forbidden");
    assert.equal(await outcome(node.update(Secrets, { ...(await env.admin.get(Secrets, { namespace: OSC_NAMESPACE, name: a })), data: {} })), "forbidden");
    assert.equal(await outcome(node.get(Secrets, { namespace: "default", name: a })), "forbidden");
  });

  it("drops a pool's Secret from the Role, and no pools grant nothing", async () => {
    const [a, b] = desiredOSCSecrets(shoot(["a", "b"]), undefined).map((d) => d.secretName) as [string, string];
    await syncOSCAccess(env.admin, [a], signal);
    await eventually("RBAC refuses the dropped Secret", async () => ((await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: b }))) === "forbidden" ? true : undefined));
    assert.equal(await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: a })), "ok");
    await syncOSCAccess(env.admin, [], signal);
    // An empty resourceNames would allow every Secret: the Role has no rule at all instead.
    assert.deepEqual((await env.admin.get(Roles, { namespace: OSC_NAMESPACE, name: OSC_ACCESS_NAME })).rules ?? [], []);
    assert.deepEqual(oscAccessRules(["", ""]), []);
    await eventually("RBAC refuses every Secret", async () => ((await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: a }))) === "forbidden" ? true : undefined));
    assert.equal(await outcome(node.get(Secrets, { namespace: OSC_NAMESPACE, name: "other" })), "forbidden");
  });
});
