// The kubelet keeps a running pod's volumes current (docs/kubelet.md), against a real API server with the
// pod runtime in memory and a fake clock: the projected service-account token is bound to the pod and
// requested anew once 80 % of its lifetime has passed, before it expires; a changed Secret reaches the
// volume on the next resync; a deleted optional source empties its volume, a deleted required one keeps
// the last content and reports FailedMount.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConfigMaps, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Events } from "../../../src/client/events.ts";
import type { NodeAgent } from "../../../src/nodeagent/agent.ts";
import { Pods, VOLUME_RESYNC_MS } from "../../../src/nodeagent/kubelet/kubelet.ts";
import type { PodInputs } from "../../../src/nodeagent/kubelet/runtime/types.ts";
import { FakeClock } from "../../../src/utils/clock.ts";
import { eventually } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { NODE, startFakeKubelet } from "./fake-kubelet.ts";
import { FakeRuntime } from "./fake-runtime.ts";

const NS = "default";
const b64 = (s: string): string => Buffer.from(s).toString("base64");
const claims = (jwt: string): Record<string, any> => JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("kubelet volume refresh: bound tokens, Secret updates, deleted sources (fake runtime, fake clock)", { timeout: 60_000 }, () => {
  let dir: string;
  let api: InProcessServer;
  let client: Client;
  let clock: FakeClock;
  let runtime: FakeRuntime;
  let agent: NodeAgent;
  let uid: string;

  const syncs = (): PodInputs[] => runtime.syncs.filter((s) => s.uid === uid).map((s) => s.inputs);
  /** Steps the kubelet's clock one volume resync and waits for the runtime to get new inputs. */
  const resync = async (what: string, stepMs = VOLUME_RESYNC_MS): Promise<PodInputs> => {
    const before = syncs().length;
    clock.step(stepMs);
    return eventually(what, () => (syncs().length > before ? syncs().at(-1) : undefined));
  };
  const tokenOf = (inputs: PodInputs | undefined): string => {
    const api = Object.keys(inputs?.volumes ?? {}).find((v) => v.startsWith("kube-api-access-"));
    const f = api ? inputs?.volumes?.[api]?.token : undefined;
    return typeof f === "object" ? f.data : (f ?? "");
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubelet-refresh-"));
    api = await startInProcessApiServer({ dataDir: join(dir, "api") });
    client = api.admin;
    clock = new FakeClock(Date.now());
    runtime = new FakeRuntime();
    agent = await startFakeKubelet(api, dir, clock, runtime);
    await client.create(Secrets, { metadata: { name: "creds", namespace: NS }, data: { password: b64("one") } });
    await client.create(ConfigMaps, { metadata: { name: "maybe", namespace: NS }, data: { k: "v" } });
    await eventually("default service account", () => client.transport.request({ method: "GET", path: `/api/v1/namespaces/${NS}/serviceaccounts/default` }).catch(() => undefined));
    const p = await client.create(Pods, {
      metadata: { name: "app", namespace: NS },
      spec: {
        nodeName: NODE,
        containers: [{ name: "c0", image: "busybox", volumeMounts: [{ name: "creds", mountPath: "/creds" }, { name: "maybe", mountPath: "/maybe" }] }],
        volumes: [{ name: "creds", secret: { secretName: "creds" } }, { name: "maybe", configMap: { name: "maybe", optional: true } }],
      },
    });
    uid = p.metadata.uid!;
    await eventually("Running", async () => ((await client.get(Pods, { namespace: NS, name: "app" })).status?.phase === "Running" ? true : undefined));
  });
  after(async () => {
    await agent?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the projected token is bound to the pod, and requested anew after 80 % of its lifetime, before it expires; a changed Secret lands on the next resync", async () => {
    const first = tokenOf(syncs().at(-1));
    const c = claims(first);
    assert.equal(c.sub, `system:serviceaccount:${NS}:default`);
    assert.deepEqual(c["kubernetes.io"].pod, { name: "app", uid });
    assert.ok(Array.isArray(c.aud) && c.aud.length > 0);
    const lifetimeMs = (c.exp - c.iat) * 1000;
    assert.equal(lifetimeMs, 3607_000, "the lifetime service-account admission asks for");
    // At 79 % of the lifetime a changed Secret reaches the runtime with the cached token beside it.
    await client.patch(Secrets, { namespace: NS, name: "creds" }, { type: "merge", body: { data: { password: b64("two") } } });
    const updated = await resync("the changed Secret", 0.79 * lifetimeMs);
    assert.deepEqual(updated.volumes?.creds, { password: { data: "two", mode: 0o644 } });
    assert.equal(tokenOf(updated), first, "no new token before 80 % of the lifetime");
    const refreshed = tokenOf(await resync("the refreshed token", 0.02 * lifetimeMs));
    assert.notEqual(refreshed, first);
    assert.deepEqual(claims(refreshed)["kubernetes.io"].pod, { name: "app", uid });
    // The new token authenticates as the pod's service account.
    const review = await client.transport.request<{ status: { authenticated?: boolean; user?: { username: string } } }>({
      method: "POST", path: "/apis/authentication.k8s.io/v1/tokenreviews", body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: refreshed } },
    });
    assert.equal(review.status.authenticated, true);
    assert.equal(review.status.user?.username, `system:serviceaccount:${NS}:default`);
  });

  it("a deleted optional ConfigMap empties its volume on the next resync", async () => {
    await client.delete(ConfigMaps, { namespace: NS, name: "maybe" });
    const emptied = await resync("the deleted optional ConfigMap");
    assert.deepEqual(emptied.volumes?.maybe, {});
  });

  it("a deleted required Secret keeps the volume's last content and records FailedMount", async () => {
    await client.delete(Secrets, { namespace: NS, name: "creds" });
    const n = syncs().length;
    clock.step(VOLUME_RESYNC_MS);
    await eventually("FailedMount", async () => ((await client.list(Events, { namespace: NS })).items.some((e) => e.involvedObject.name === "app" && e.reason === "FailedMount" && e.message === 'MountVolume.SetUp failed for volume "creds" : secret "creds" not found') ? true : undefined));
    assert.equal(syncs().length, n, "the runtime keeps the last content");
    assert.equal((await client.get(Pods, { namespace: NS, name: "app" })).status?.phase, "Running");
  });
});
