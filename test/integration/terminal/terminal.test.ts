// Web terminals end to end at integration level (docs/terminals.md): the garden calls the
// terminal-controller-manager's real webhooks over HTTPS; its controller builds the access side on
// the target (the garden) and the pod side on the host (a shoot API server); keepalives, idle
// cleanup on the fake clock, and the finalizer's cleanup on both clusters.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Terminal } from "../../../src/apis/dashboard/v1alpha1/types.ts";
import { Namespaces, RoleBindings, Roles, Secrets } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/client.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { Events } from "../../../src/client/events.ts";
import { Pods, ServiceAccounts, Terminals, ValidatingWebhookConfigurations } from "../../../src/terminal/resources.ts";
import { metaTime } from "../../../src/utils/time.ts";
import { eventually } from "../../support/http.ts";
import { type Env, NS, SA, startEnv } from "./setup.ts";

const MIN = 60_000;
let env: Env;
let alice: Client;
let carol: Client;

function gardenTerminal(name: string, extra: Record<string, unknown> = {}): Terminal {
  return {
    metadata: { name, namespace: NS, annotations: { "gardener.cloud/created-by": "mallory" } },
    spec: {
      host: { credentials: { shootRef: { namespace: NS, name: "s" } }, temporaryNamespace: true, pod: { container: { image: "busybox:1.36", command: ["sh"] } } },
      target: {
        credentials: { serviceAccountRef: { namespace: NS, name: SA } },
        temporaryNamespace: true,
        kubeconfigContextNamespace: NS,
        authorization: { roleBindings: [{ nameSuffix: "", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" }, bindingKind: "RoleBinding" }] },
      },
      ...extra,
    } as Terminal["spec"],
  };
}

/** Polls while moving the fake clock 50 ms a turn, so the controllers' backoffs and requeues run. */
function settle<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  return eventually(what, async () => {
    env.clock.step(50);
    return fn();
  }, 15_000, 20);
}

const ready = (name: string) =>
  settle(`terminal ${name} ready`, async () => {
    const t = await env.gardenAdmin.get(Terminals, { namespace: NS, name });
    return t.status?.podName && t.status.attachServiceAccountName && t.status.lastOperation?.state === "Succeeded" ? t : undefined;
  });

const message = (err: unknown) => (err as Error).message;
const gone = (c: Client, type: Parameters<Client["get"]>[0], key: { namespace?: string; name: string }) => unlessNotFound(c.get(type, key)).then((o) => o === undefined);

before(async () => {
  env = await startEnv({ timeToLiveMs: 5 * MIN, maxTerminalsPerUser: 2 });
  alice = await env.clientFor("alice");
  carol = await env.clientFor("carol");
});
after(async () => {
  await env?.stop();
});

void describe("web terminals", { timeout: 120_000 }, () => {
  it("the mutating webhook stamps the authenticated creator, an identifier, temporary namespaces and a heartbeat", async () => {
    const t = await alice.create(Terminals, gardenTerminal("t-mutate"));
    const id = t.spec.identifier;
    assert.match(id, /^\d+$/);
    assert.equal(t.metadata.annotations?.["gardener.cloud/created-by"], "alice", "the request's user, not the object's claim");
    assert.equal(t.spec.host.namespace, `term-${id}`);
    assert.equal(t.spec.target.namespace, `term-${id}`);
    assert.equal(t.metadata.annotations?.["dashboard.gardener.cloud/last-heartbeat-at"], metaTime(env.clock.nowMs()));
    await ready("t-mutate");
  });

  it("builds the access side on the target and the pod side on the host, and reports ready", async () => {
    const t = await ready("t-mutate");
    const id = t.spec.identifier;
    const ns = `term-${id}`;
    assert.deepEqual(t.metadata.finalizers, ["terminal"]);
    assert.equal(t.status?.attachServiceAccountName, `term-attach-${id}`);
    assert.equal(t.status?.podName, `term-${id}`);
    // Target (garden): the access ServiceAccount and its RoleBinding in the temporary namespace.
    const access = await env.gardenAdmin.get(ServiceAccounts, { namespace: ns, name: `term-access-${id}` });
    assert.equal(access.metadata.annotations?.["dashboard.gardener.cloud/description"], "Temporary service account for web-terminal session. Managed by gardener/terminal-controller-manager");
    assert.equal(access.metadata.labels?.["terminal.dashboard.gardener.cloud/identifier"], id);
    assert.equal(access.metadata.annotations?.["terminal.dashboard.gardener.cloud/created-by"], "alice");
    const rb = await env.gardenAdmin.get(RoleBindings, { namespace: ns, name: `term-access-${id}` });
    assert.deepEqual(rb.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" });
    assert.deepEqual(rb.subjects, [{ kind: "ServiceAccount", namespace: ns, name: `term-access-${id}` }]);
    // Host (shoot): attach ServiceAccount, a Role for this one pod, the Secrets and the pod.
    assert.ok(await env.shootAdmin.get(ServiceAccounts, { namespace: ns, name: `term-attach-${id}` }));
    const role = await env.shootAdmin.get(Roles, { namespace: ns, name: `dashboard.gardener.cloud:term-attach-${id}` });
    assert.deepEqual(role.rules, [
      { apiGroups: [""], resources: ["pods/attach"], verbs: ["get", "create"], resourceNames: [`term-${id}`] },
      { apiGroups: [""], resources: ["pods"], verbs: ["watch"], resourceNames: [`term-${id}`] },
    ]);
    const attachRb = await env.shootAdmin.get(RoleBindings, { namespace: ns, name: `term-attach-${id}` });
    assert.deepEqual(attachRb.subjects, [{ kind: "ServiceAccount", namespace: ns, name: `term-attach-${id}` }]);
    const kcSecret = await env.shootAdmin.get(Secrets, { namespace: ns, name: `term-kubeconfig-${id}` });
    const kubeconfig = JSON.parse(Buffer.from(kcSecret.data!.kubeconfig!, "base64").toString()) as { clusters: { cluster: { server: string } }[]; users: { user: unknown }[]; contexts: { context: { namespace: string } }[]; "current-context": string };
    assert.equal(kubeconfig.clusters[0]!.cluster.server, env.gardenUrl);
    assert.deepEqual(kubeconfig.users[0]!.user, { tokenFile: "/mnt/.auth/token" });
    assert.equal(kubeconfig.contexts[0]!.context.namespace, NS);
    assert.equal(kubeconfig["current-context"], SA);
    // The token Secret holds a token of the access ServiceAccount that the garden accepts.
    const tokenSecret = await env.shootAdmin.get(Secrets, { namespace: ns, name: `term-token-${id}` });
    assert.ok(Buffer.from(tokenSecret.data!.token!, "base64").toString().split(".").length === 3);
    const pod = (await env.shootAdmin.get(Pods, { namespace: ns, name: `term-${id}` })) as unknown as { spec: { containers: { name: string; image: string; command: string[]; stdin: boolean; tty: boolean; env: unknown[] }[]; initContainers: { command: string[] }[]; volumes: { name: string; secret?: { secretName: string } }[]; automountServiceAccountToken: boolean } };
    const c = pod.spec.containers[0]!;
    assert.deepEqual([c.name, c.image, c.command, c.stdin, c.tty], ["terminal", "busybox:1.36", ["sh"], true, true]);
    assert.deepEqual(c.env, [{ name: "KUBECONFIG", value: "/mnt/.kube/config" }]);
    assert.deepEqual(pod.spec.initContainers[0]!.command, ["/bin/cp", "/mnt/.kube-ro/config", "/mnt/.kube-rw/config"]);
    assert.equal(pod.spec.volumes.find((v) => v.name === "token")?.secret?.secretName, `term-token-${id}`);
    assert.equal(pod.spec.automountServiceAccountToken, false);
  });

  it("the validating webhook refuses a user who may not read a credential, changed immutable fields and others' heartbeats", async () => {
    await assert.rejects(carol.create(Terminals, gardenTerminal("t-carol")), (err) => {
      assert.equal(message(err), 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: spec.target.credentials: Forbidden: carol is not allowed to read target credential');
      return true;
    });
    const bad = gardenTerminal("t-bad");
    bad.spec.target.authorization!.roleBindings![0] = { nameSuffix: "", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "x" }, bindingKind: "ClusterRoleBinding" };
    await assert.rejects(alice.create(Terminals, bad), (err) => {
      assert.equal(message(err), 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: spec.target.authorization.roleBindings[0].roleRef.kind: Invalid value: "Role": ClusterRoleBinding can only reference a ClusterRole');
      return true;
    });
    const key = { namespace: NS, name: "t-mutate" };
    await assert.rejects(alice.patch(Terminals, key, { type: "merge", body: { spec: { host: { pod: { container: { image: "evil" } } } } } }), /denied the request: spec: Invalid value: .*: field is immutable/);
    await assert.rejects(alice.patch(Terminals, key, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/created-by": "carol" } } } }), /denied the request: metadata\.annotations\.gardener\.cloud\/created-by: Invalid value: "carol": field is immutable/);
    env.clock.step(2000); // a new second: the keepalive changes the heartbeat
    await assert.rejects(carol.patch(Terminals, key, { type: "merge", body: { metadata: { annotations: { "dashboard.gardener.cloud/operation": "keepalive" } } } }), (err) => {
      assert.equal(message(err), 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: metadata.annotations.dashboard.gardener.cloud/last-heartbeat-at: Forbidden: carol is not allowed to change this field');
      return true;
    });
  });

  it("caps a user's Terminals; a keepalive moves the heartbeat; without one the Terminal is deleted after its timeToLive and everything it made goes on both clusters", async () => {
    const created = await alice.create(Terminals, gardenTerminal("t-idle"));
    const id = created.spec.identifier;
    const ns = `term-${id}`;
    await ready("t-idle");
    // alice has t-mutate and t-idle: a third is over her cap.
    await assert.rejects(alice.create(Terminals, gardenTerminal("t-third")), (err) => {
      assert.equal(message(err), 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: terminal limit reached: user alice already has 2 terminals (maximum 2)');
      return true;
    });
    env.clock.step(4 * MIN);
    const beat = await alice.patch(Terminals, { namespace: NS, name: "t-idle" }, { type: "merge", body: { metadata: { annotations: { "dashboard.gardener.cloud/operation": "keepalive" } } } });
    assert.equal(beat.metadata.annotations?.["dashboard.gardener.cloud/operation"], undefined);
    const beatAt = Date.parse(beat.metadata.annotations!["dashboard.gardener.cloud/last-heartbeat-at"]!);
    assert.ok(beatAt > Date.parse(created.metadata.annotations!["dashboard.gardener.cloud/last-heartbeat-at"]!));
    // t-mutate had no keepalive: 5 min after its heartbeat it is gone, t-idle is not.
    env.clock.step(1 * MIN + 1000);
    await settle("t-mutate deleted", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-mutate" }))) ? undefined : true));
    assert.ok(await env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-idle" }), "the keepalive kept t-idle");
    env.clock.step(4 * MIN);
    await settle("t-idle deleted", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-idle" }))) ? undefined : true));
    for (const [c, type, key] of [
      [env.gardenAdmin, ServiceAccounts, { namespace: ns, name: `term-access-${id}` }],
      [env.gardenAdmin, RoleBindings, { namespace: ns, name: `term-access-${id}` }],
      [env.shootAdmin, Pods, { namespace: ns, name: `term-${id}` }],
      [env.shootAdmin, ServiceAccounts, { namespace: ns, name: `term-attach-${id}` }],
      [env.shootAdmin, Roles, { namespace: ns, name: `dashboard.gardener.cloud:term-attach-${id}` }],
      [env.shootAdmin, Secrets, { namespace: ns, name: `term-kubeconfig-${id}` }],
      [env.shootAdmin, Secrets, { namespace: ns, name: `term-token-${id}` }],
    ] as const) {
      assert.ok(await gone(c, type as never, key), `${type.kind} ${key.name} gone`);
    }
    // The temporary namespaces are deleted (or already terminating) on both clusters.
    for (const c of [env.gardenAdmin, env.shootAdmin]) {
      const n = await unlessNotFound(c.get(Namespaces, { name: ns }));
      assert.ok(n === undefined || n.metadata.deletionTimestamp, "temporary namespace deleted");
    }
  });

  it("refuses a Terminal over maxObjectSize with 400", async () => {
    const big = gardenTerminal("t-big");
    big.spec.host.pod.labels = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`label-${i}`, "x".repeat(50)]));
    await assert.rejects(alice.create(Terminals, big), (err) => {
      assert.equal(message(err), 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: resource must not have more than 10240 bytes');
      assert.equal((err as { code?: number }).code ?? (err as { status?: number }).status, 400);
      return true;
    });
  });

  it("deletes a Terminal the validating webhook did not see (safety net)", async () => {
    await env.gardenAdmin.delete(ValidatingWebhookConfigurations, { name: "terminal-validating-webhook-configuration" });
    await settle("validating webhook gone", async () => ((await env.gardenAdmin.list(ValidatingWebhookConfigurations)).items.length === 0 ? true : undefined));
    await env.gardenAdmin.create(Terminals, gardenTerminal("t-unchecked"));
    const why = "Failed ensuring admission webhook is configured: expected 1 validating webhook configuration but found 0";
    await settle("t-unchecked deleted by the safety net", async () => {
      const events = await env.gardenAdmin.list(Events, { namespace: NS });
      const said = events.items.some((e) => (e as { involvedObject?: { name?: string }; message?: string }).involvedObject?.name === "t-unchecked" && (e as { message?: string }).message === why);
      const gone = (await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-unchecked" }))) === undefined;
      return said && gone ? true : undefined;
    });
  });
});

