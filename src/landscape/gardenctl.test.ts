import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { writeGardenctlConfig } from "./gardenctl.ts";
import { Layout } from "./layout.ts";

test("the gardenctl config targets garden local as the member and detects the host's public-network address", (t) => {
  const layout = new Layout(mkdtempSync(join(tmpdir(), "gardenctl-")));
  t.after(() => rmSync(layout.dir, { recursive: true, force: true }));
  const path = writeGardenctlConfig(layout, "192.168.250.0/24");
  assert.equal(path, join(layout.dir, "gardenctl", "gardenctl-v2.yaml"));
  assert.deepEqual(parse(readFileSync(path, "utf8")), {
    gardens: [{ identity: "local", kubeconfig: layout.memberKubeconfig }],
    ssh: { publicIPStrategy: "local", localBastionNetwork: "192.168.250.0/24" },
  });
});
