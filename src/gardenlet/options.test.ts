import assert from "node:assert/strict";
import { test } from "node:test";
import { KEY_POOL_SIZE } from "./controller/sshkeypair/keypool.ts";
import { MAX_SSH_KEYPAIR_POOL_SIZE, parseGardenletFlags } from "./options.ts";

const base = ["--garden-kubeconfig", "g", "--seed-kubeconfig", "s", "--seed-name", "local"];

test("--shoot-kubeconfig is repeatable and keyed by namespace/name", () => {
  const r = parseGardenletFlags([...base, "--shoot-kubeconfig", "garden-local/local=/a/b=c.kubeconfig", "--shoot-kubeconfig", "garden-p/s=/x"]);
  assert.equal(r.kind, "options");
  if (r.kind !== "options") return;
  assert.deepEqual([...r.options.shootKubeconfigs], [["garden-local/local", "/a/b=c.kubeconfig"], ["garden-p/s", "/x"]]);
});

test("without --shoot-kubeconfig the map is empty", () => {
  const r = parseGardenletFlags(base);
  assert.equal(r.kind === "options" && r.options.shootKubeconfigs.size, 0);
});

test("a malformed or repeated --shoot-kubeconfig is a flag error (exit 2)", () => {
  for (const bad of [["x=/f"], ["a/b/c=/f"], ["a/b="], ["a/b=/f", "a/b=/g"]]) {
    const r = parseGardenletFlags([...base, ...bad.flatMap((v) => ["--shoot-kubeconfig", v])]);
    assert.equal(r.kind, "exit", bad.join(" "));
    if (r.kind === "exit") {
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--shoot-kubeconfig/);
    }
  }
});

test("--ssh-keypair-pool-size: default, a bounded whole number, else a flag error", () => {
  const def = parseGardenletFlags(base);
  assert.equal(def.kind === "options" && def.options.sshKeypairPoolSize, KEY_POOL_SIZE);
  const r = parseGardenletFlags([...base, "--ssh-keypair-pool-size", "24"]);
  assert.equal(r.kind === "options" && r.options.sshKeypairPoolSize, 24);
  for (const bad of ["0", "-1", "1.5", "x", String(MAX_SSH_KEYPAIR_POOL_SIZE + 1)]) {
    const e = parseGardenletFlags([...base, "--ssh-keypair-pool-size", bad]);
    assert.equal(e.kind, "exit", bad);
    if (e.kind === "exit") assert.match(e.stderr, /--ssh-keypair-pool-size/);
  }
});
