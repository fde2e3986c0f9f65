// The provider-local command: flags (help 0, bad flags one line and 2) and, as root, a start against a
// seed API server that prints its ready line, serves /healthz, and stops with exit 0 on SIGTERM.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { parseOptions } from "../../../src/apiserver/server/options.ts";
import { type RunningServer, startApiServer } from "../../../src/apiserver/server/server.ts";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import { readExtensionCRDs } from "../../../src/api/extensions/crds.ts";
import { Client } from "../../../src/client/client.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { Clusters, ExtensionBastions } from "../../../src/extensions/resources.ts";
import { eventually } from "../../support/http.ts";
import { skipUnlessRoot } from "../host/support.ts";

const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });

const BIN = join(import.meta.dirname, "../../../bin/provider-local.js");

test("--help exits 0; a bad flag prints one line and exits 2", () => {
  const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--kubeconfig <file>/);
  const bad = spawnSync(process.execPath, [BIN, "--kubeconfig", "/k", "--public-cidr", "nope"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: invalid value "nope" for --public-cidr/);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
});

describe("provider-local command against a seed", { skip: skipUnlessRoot }, () => {
  let dir: string;
  let seed: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "pl-cmd-"));
    const parsed = parseOptions(["--data-dir", join(dir, "seed"), "--secure-port", "0", "--etcd-compaction-interval", "0s"]);
    if (parsed.kind !== "options") throw new Error(parsed.stderr);
    seed = await startApiServer(parsed.options, { logger: pino({ level: "silent" }) });
    const client = Client.fromKubeconfigFile(seed.adminKubeconfigPath);
    for (const crd of readExtensionCRDs()) await client.create(CRDs, crd);
    await eventually("CRDs served", async () => ((await client.list(ExtensionBastions, { limit: 1 })) && (await client.list(Clusters, { limit: 1 })) ? true : undefined));
    client.close();
  });
  after(async () => {
    await seed?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("starts, serves /healthz, stops on SIGTERM with exit 0", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [BIN, "--kubeconfig", seed.adminKubeconfigPath, "--state-dir", join(dir, "pl"), "--prefix", "gcmd-", "--metrics-bind-address", "127.0.0.1:0", "--log-level", "warn"], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    let out = "";
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) resolve(out);
        });
        void exited.then((code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      assert.match(line, /^provider-local started; state in .*\/pl; metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1];
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
