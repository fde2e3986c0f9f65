import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { defaultGardenctlConfig, installGardenctlConfig, publicIPCommand, uninstallGardenctlConfig, writeGardenctlConfig } from "./gardenctl.ts";
import { Layout } from "./layout.ts";

function temp(t: { after(fn: () => void): void }): { layout: Layout; home: string } {
  const dir = mkdtempSync(join(tmpdir(), "gardenctl-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { layout: new Layout(join(dir, "state")), home: join(dir, "home") };
}

test("the gardenctl config targets garden local as the member, with gardenctl's public-IP command", (t) => {
  const { layout } = temp(t);
  const path = writeGardenctlConfig(layout, "192.168.250.1");
  assert.equal(path, join(layout.dir, "gardenctl", "gardenctl-v2.yaml"));
  assert.deepEqual(parse(readFileSync(path, "utf8")), {
    gardens: [{ identity: "local", kubeconfig: layout.memberKubeconfig }],
    ssh: { publicIPCommand: publicIPCommand("192.168.250.1") },
  });
});

test("the public-IP command prints the host's source address towards the gateway", () => {
  // Towards loopback the source is 127.0.0.1: the same routing lookup the landscape's gateway gets.
  assert.equal(execFileSync("/bin/sh", ["-c", publicIPCommand("127.0.0.1")], { encoding: "utf8" }), "127.0.0.1\n");
});

test("the default gardenctl config is written only when there is none, and removed by down unless changed", (t) => {
  const { layout, home } = temp(t);
  writeGardenctlConfig(layout, "192.168.250.1");
  const env = { HOME: home };
  const target = defaultGardenctlConfig(env);
  assert.equal(target, join(home, ".garden", "gardenctl-v2.yaml"));
  assert.equal(defaultGardenctlConfig({ HOME: home, GCTL_HOME: "/x", GCTL_CONFIG_NAME: "c" }), "/x/c.yaml");

  assert.match(installGardenctlConfig(layout, env), /configured garden local in .*\.garden\/gardenctl-v2\.yaml/);
  assert.equal(readFileSync(target, "utf8"), readFileSync(join(layout.dir, "gardenctl", "gardenctl-v2.yaml"), "utf8"));
  assert.match(uninstallGardenctlConfig(layout)!, /removed/);
  assert.equal(existsSync(join(home, ".garden")), false, "the directory it created goes too");
  assert.equal(uninstallGardenctlConfig(layout), undefined, "nothing recorded any more");

  // The user's own file is never touched.
  mkdirSync(join(home, ".garden"), { recursive: true });
  writeFileSync(target, "gardens: []\n");
  assert.match(installGardenctlConfig(layout, env), /exists and is left alone; use GCTL_HOME=/);
  assert.equal(uninstallGardenctlConfig(layout), undefined);
  assert.equal(readFileSync(target, "utf8"), "gardens: []\n");

  // Changed after up: kept.
  rmSync(target);
  installGardenctlConfig(layout, env);
  writeFileSync(target, readFileSync(target, "utf8") + "# mine\n");
  assert.match(uninstallGardenctlConfig(layout)!, /was changed since `up`; left as it is/);
  assert.ok(existsSync(target));
});
