// bin/gardener-node-agent.js as a machine runs it, against a shoot API server, with --root a temp
// dir: it registers its Node, installs the pool's keys, reports the checksum and stops on SIGTERM
// with exit 0. Bad flags exit 2 with one line.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ANNOTATION_CHECKSUM_CLOUD_CONFIG, ANNOTATION_CHECKSUM_DATA_SCRIPT, LABEL_WORKER_POOL, checksumOf, renderOSC } from "../../../src/api/gardencore/osc.ts";
import type { RunningServer } from "../../../src/apiserver/server/server.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/client.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { repoRoot } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK";
const BIN = join(repoRoot, "bin", "gardener-node-agent.js");

// The real command starts cold under tsx: 46 s once at load 30.
describe("gardener-node-agent command", { timeout: 180_000 }, () => {
  let dir: string;
  let api: InProcessServer;
  let server: RunningServer;
  let admin: Client;
  let child: ChildProcess | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "nodeagent-cmd-"));
    api = await startInProcessApiServer({ dataDir: join(dir, "shoot") });
    ({ server, admin } = api);
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("exits 2 with one line for bad flags and 0 for --help", () => {
    const bad = spawnSync(process.execPath, [BIN, "--node-name", "n"], { encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, "error: --kubeconfig is required\n");
    const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--pool <name>/);
  });

  it("applies the pool's OSC under --root, reports it and stops cleanly on SIGTERM", async () => {
    const yaml = renderOSC({ authorizedKeys: [KEY] });
    await admin.create(Secrets, {
      metadata: {
        namespace: "kube-system",
        name: "gardener-node-agent-worker-00000000",
        labels: { "gardener.cloud/role": "operating-system-config", [LABEL_WORKER_POOL]: "worker" },
        annotations: { [ANNOTATION_CHECKSUM_DATA_SCRIPT]: checksumOf(yaml) },
      },
      type: "Opaque",
      data: { "osc.yaml": Buffer.from(yaml).toString("base64") },
    });
    const root = join(dir, "machine");
    mkdirSync(root);
    child = spawn(process.execPath, [BIN, "--kubeconfig", server.adminKubeconfigPath, "--node-name", "node-1", "--pool", "worker", "--root", root, "--log-level", "warn"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    await eventually("checksum reported", async () => {
      const n = await admin.get(Nodes, { name: "node-1" }).catch(() => undefined);
      return n?.metadata.annotations?.[ANNOTATION_CHECKSUM_CLOUD_CONFIG] === checksumOf(yaml) ? n : undefined;
    }, 180_000); // a cold tsx start of the command takes over a minute at a load average of 30
    assert.match(out, /gardener-node-agent started for node node-1 \(pool worker\)/);
    const ak = join(root, "home/gardener/.ssh/authorized_keys");
    assert.equal(readFileSync(ak, "utf8"), KEY);
    assert.equal(statSync(ak).mode & 0o777, 0o600);
    child.kill("SIGTERM");
    assert.equal(await exited, 0, out);
  });
});
