import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import { writeKubeconfig } from "./kubeconfig.ts";

describe("writeKubeconfig", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubeconfig-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a client-certificate kubeconfig that client-node loads, mode 0600", async () => {
    const path = join(dir, "admin.kubeconfig");
    await writeKubeconfig(path, {
      server: "https://127.0.0.1:6443",
      caPem: "CA PEM\n",
      clusterName: "garden",
      userName: "admin",
      user: { certPem: "CERT PEM\n", keyPem: "KEY PEM\n" },
    });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const raw = parse(await readFile(path, "utf8")) as Record<string, unknown>;
    assert.equal(raw["current-context"], "garden");
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    assert.equal(kc.getCurrentCluster()?.server, "https://127.0.0.1:6443");
    assert.equal(Buffer.from(kc.getCurrentCluster()!.caData!, "base64").toString(), "CA PEM\n");
    const user = kc.getCurrentUser()!;
    assert.equal(user.name, "admin");
    assert.equal(Buffer.from(user.certData!, "base64").toString(), "CERT PEM\n");
    assert.equal(Buffer.from(user.keyData!, "base64").toString(), "KEY PEM\n");
  });

  it("writes a token kubeconfig with a namespace in the context", async () => {
    const path = join(dir, "token.kubeconfig");
    await writeKubeconfig(path, {
      server: "https://localhost:1",
      caPem: "x",
      clusterName: "shoot",
      userName: "sa",
      contextName: "ctx",
      namespace: "garden-dev",
      user: { token: "abc.def" },
    });
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    assert.equal(kc.getCurrentContext(), "ctx");
    assert.equal(kc.getContextObject("ctx")?.namespace, "garden-dev");
    assert.equal(kc.getCurrentUser()?.token, "abc.def");
  });
});
