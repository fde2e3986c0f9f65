import assert from "node:assert/strict";
import { test } from "node:test";
import { renderContainerScript } from "./container-script.ts";

const base = { dir: "/d", hostname: "h", privileged: false, mounts: [{ source: "/v", target: "/var/lib/gardener-node-agent/x" }], command: ["sh"], env: [] };

test("hidden node directories are covered by an empty tmpfs before the pod's own mounts", () => {
  const script = renderContainerScript({ ...base, hide: ["/etc/gardener-node-agent", "/var/lib/gardener-node-agent"] });
  const cover = script.indexOf(`mount -t tmpfs -o nosuid,nodev,mode=700,size=64k tmpfs "$R"'/var/lib/gardener-node-agent'`);
  assert.ok(cover > 0, script);
  assert.ok(script.includes(`tmpfs "$R"'/etc/gardener-node-agent'`));
  assert.ok(cover < script.indexOf("mount --bind '/v'"), "a volume inside a hidden directory is still mounted");
  assert.ok(cover < script.indexOf("pivot_root"));
});

test("a hidden path must be absolute and without ..", () => {
  for (const h of ["etc", "/etc/../root"]) assert.throws(() => renderContainerScript({ ...base, hide: [h] }), /must be absolute/);
  assert.doesNotMatch(renderContainerScript(base), /mode=700,size=64k/);
});
