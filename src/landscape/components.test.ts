import assert from "node:assert/strict";
import { test } from "node:test";
import { BASTION_TTL_ENV, bastionTimeToLiveOf, gardenApiServer, gardenlet, providerLocal, scheduler, seedApiServer, shootApiServer, workerUserData, type ComponentContext } from "./components.ts";
import { Layout } from "./layout.ts";

const ctx: ComponentContext = { layout: new Layout("/s"), ports: { garden: 1, seed: 2, shoot: 3 }, hostAddress: "192.168.250.2", prefix: "gl-" };

test("the shoot API server binds and advertises the host's public address (the nodes reach it through NAT)", () => {
  const args = shootApiServer(ctx).args.join(" ");
  assert.match(args, /--bind-address 192\.168\.250\.2 --advertise-address 192\.168\.250\.2/);
  assert.match(args, /--data-dir \/s\/shoot --secure-port 3/);
});

test("provider-local gets the bastion pool size when told (0 disables), its default otherwise", () => {
  assert.doesNotMatch(providerLocal(ctx).args.join(" "), /--bastion-pool-size/);
  assert.match(providerLocal({ ...ctx, bastionPoolSize: "0" }).args.join(" "), /--bastion-pool-size 0 /);
});

test("the gardenlet gets the shoot's kubeconfig (sshkeypair controller)", () => {
  assert.match(gardenlet(ctx).args.join(" "), /--shoot-kubeconfig garden-local\/local=\/s\/shoot-local\.kubeconfig/);
  assert.doesNotMatch(gardenlet(ctx).args.join(" "), /--ssh-keypair-pool-size/, "its default unless told");
  assert.match(gardenlet({ ...ctx, sshKeypairPoolSize: "24" }).args.join(" "), /--ssh-keypair-pool-size 24/);
  assert.match(gardenlet(ctx).args.join(" "), /--metrics-bind-address 0 /, "no metrics server unless told");
  assert.match(gardenlet(ctx).args.join(" "), /--shoot-care-sync-period 10s /, "the tunnel check every 10 s");
  assert.match(gardenlet({ ...ctx, gardenletMetricsAddress: "127.0.0.1:38446" }).args.join(" "), /--metrics-bind-address 127\.0\.0\.1:38446 /);
});

test("worker user-data writes the kubeconfig verbatim and keeps the node agent running in the background", () => {
  const ud = workerUserData({ kubeconfig: "apiVersion: v1\nkind: Config\n", nodeName: "n1", pool: "worker" });
  assert.ok(ud.startsWith("#!/bin/sh\n"));
  assert.match(ud, /<<'GARDENER_LOCAL_EOF'\napiVersion: v1\nkind: Config\nGARDENER_LOCAL_EOF\n/);
  assert.match(ud, /setsid sh -c 'while :; do .*gardener-node-agent\.js --kubeconfig \/etc\/gardener-node-agent\/kubeconfig --node-name n1 --pool worker --host-key-dir \/run\/ga\/host-keys .*; sleep 2; done' .*&$/m);
});

test("the garden API server listens on 127.0.0.1 and its serving certificate also names the host's public address (pods reach it there through the relay)", () => {
  assert.match(gardenApiServer(ctx).args.join(" "), /--bind-address 127\.0\.0\.1 --tls-san 192\.168\.250\.2 /);
});

test("the garden API server gets --bastion-time-to-live only when the landscape sets one", () => {
  assert.doesNotMatch(gardenApiServer(ctx).args.join(" "), /--bastion-time-to-live/);
  assert.match(gardenApiServer({ ...ctx, bastionTimeToLive: "20s" }).args.join(" "), /--authorization-mode Seed,RBAC --bastion-time-to-live 20s$/);
});

test("the supervisor takes the bastion time-to-live from its option, else from the environment up sets", () => {
  assert.equal(bastionTimeToLiveOf("30s", { [BASTION_TTL_ENV]: "20s" }), "30s");
  assert.equal(bastionTimeToLiveOf(undefined, { [BASTION_TTL_ENV]: "20s" }), "20s");
  assert.equal(bastionTimeToLiveOf(undefined, { [BASTION_TTL_ENV]: "" }), undefined);
  assert.equal(bastionTimeToLiveOf(undefined, {}), undefined);
});

test("with a bootstrap kubeconfig the user-data holds no other credentials and the agent gets its own kubeconfig and its OSC Secret", () => {
  const ud = workerUserData({ bootstrapKubeconfig: "apiVersion: v1\nusers: [{user: {token: abcdef.0123456789abcdef}}]\n", secretName: "gardener-node-agent-worker-1234abcd", nodeName: "n1", pool: "worker" });
  assert.match(ud, /cat > \/var\/lib\/gardener-node-agent\/bootstrap-kubeconfig <<'GARDENER_LOCAL_EOF'\napiVersion: v1\nusers: \[\{user: \{token: abcdef\.0123456789abcdef\}\}\]\nGARDENER_LOCAL_EOF\nchmod 600 \/var\/lib\/gardener-node-agent\/bootstrap-kubeconfig\n/);
  assert.doesNotMatch(ud, /\/etc\/gardener-node-agent/);
  assert.match(ud, /gardener-node-agent\.js --bootstrap-kubeconfig \/var\/lib\/gardener-node-agent\/bootstrap-kubeconfig --kubeconfig \/var\/lib\/gardener-node-agent\/kubeconfig --node-name n1 --pool worker --secret-name gardener-node-agent-worker-1234abcd /);
  assert.throws(() => workerUserData({ nodeName: "n1", pool: "worker" }), /exactly one of kubeconfig and bootstrapKubeconfig/);
  assert.throws(() => workerUserData({ kubeconfig: "x", bootstrapKubeconfig: "y", nodeName: "n1", pool: "worker" }), /exactly one/);
});

test("the shoot and seed API servers accept bootstrap tokens (their workers join with one)", () => {
  assert.match(shootApiServer(ctx).args.join(" "), /--enable-bootstrap-token-auth/);
  assert.match(seedApiServer(ctx).args.join(" "), /--enable-bootstrap-token-auth/);
  assert.doesNotMatch(gardenApiServer(ctx).args.join(" "), /--enable-bootstrap-token-auth/);
});

test("a scheduler per API server with its scheduler.kubeconfig; the seed API server is on the host's address too; node grace only when set", () => {
  assert.deepEqual(scheduler(ctx, "seed").args.slice(1), ["--kubeconfig", "/s/seed/scheduler.kubeconfig", "--metrics-bind-address", "0", "--log-level", "warn"]);
  assert.equal(scheduler(ctx, "shoot").name, "shoot-scheduler");
  assert.match(seedApiServer(ctx).args.join(" "), /--bind-address 192\.168\.250\.2 --advertise-address 192\.168\.250\.2 --enable-bootstrap-token-auth$/);
  assert.match(shootApiServer({ ...ctx, nodeMonitorGracePeriod: "6s" }).args.join(" "), /--node-monitor-grace-period 6s$/);
  assert.doesNotMatch(gardenApiServer({ ...ctx, nodeMonitorGracePeriod: "6s" }).args.join(" "), /node-monitor/);
});

test("a worker with a pod range runs the node agent as kubelet and forwards; one without does neither", () => {
  const ud = workerUserData({ kubeconfig: "x", nodeName: "n1", pool: "worker", podCIDR: "100.96.1.0/24" });
  assert.match(ud, /--host-key-dir \/run\/ga\/host-keys --kubelet --pod-cidr 100\.96\.1\.0\/24 --log-level/);
  assert.match(ud, /^echo 1 > \/proc\/sys\/net\/ipv4\/ip_forward$/m);
  const plain = workerUserData({ kubeconfig: "x", nodeName: "n1", pool: "worker" });
  assert.doesNotMatch(plain, /--kubelet|ip_forward/);
});
