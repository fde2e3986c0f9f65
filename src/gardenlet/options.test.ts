import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGardenletFlags } from "./options.ts";

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
