// Real kubectl changing objects: get -w, label, annotate, edit, patch (json, merge, strategic),
// delete --wait through finalizers, wait --for=delete and --for=jsonpath.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { configMapYaml, everyKindYaml } from "./manifests.ts";

const ns = "changes";

interface ConfigMap {
  metadata: {
    name: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  data?: Record<string, string>;
}

function withFinalizer(name: string): string {
  return configMapYaml(ns, name, { a: "1" }).replace("metadata:\n", "metadata:\n  finalizers: [\"example.com/hold\"]\n");
}

void describe("kubectl changes", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;
  const cm = (name: string): Promise<ConfigMap> => k.json<ConfigMap>(["get", "cm", name, "-n", ns]);
  const create = (yaml: string): Promise<string> => k.ok(["create", "-f", "-"], { input: yaml });
  const releaseFinalizer = (name: string): Promise<string> =>
    k.ok(["patch", "cm", name, "-n", ns, "--type", "json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await create(everyKindYaml(ns));
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    void it(`${version}: get <name> -w sees the first change after the initial row`, async () => {
      const name = `watched-${version.replace(".", "-")}`;
      await create(configMapYaml(ns, name, { a: "1" }));
      const w = k.stream(["get", "cm", name, "-n", ns, "-w"], { version });
      try {
        await w.waitFor(new RegExp(`^${name}\\s+1\\s`, "m"));
        await k.ok(["patch", "cm", name, "-n", ns, "--type", "merge", "-p", '{"data":{"b":"2"}}']);
        await w.waitFor(new RegExp(`^${name}\\s+2\\s`, "m"));
        await k.ok(["patch", "cm", name, "-n", ns, "--type", "merge", "-p", '{"data":{"c":"3"}}']);
        await w.waitFor(new RegExp(`^${name}\\s+3\\s`, "m"));
      } finally {
        await w.stop();
      }
    });
  }

  void it("get -w --output-watch-events on a namespace sees ADDED, MODIFIED and DELETED", async () => {
    const w = k.stream(["get", "cm", "-n", ns, "-w", "--output-watch-events"]);
    try {
      await w.waitFor(/^ADDED\s+cm1\s+2\s/m);
      await create(configMapYaml(ns, "born", { a: "1" }));
      await w.waitFor(/^ADDED\s+born\s+1\s/m);
      await k.ok(["label", "cm", "born", "-n", ns, "x=y"]);
      await w.waitFor(/^MODIFIED\s+born\s+1\s/m);
      await k.ok(["delete", "cm", "born", "-n", ns]);
      await w.waitFor(/^DELETED\s+born\s+1\s/m);
      const header = w.stdout().split("\n")[0]!;
      assert.match(header, /^EVENT\s+NAME\s+DATA\s+AGE$/);
    } finally {
      await w.stop();
    }
  });

  void it("label adds, refuses to overwrite without --overwrite, overwrites and removes", async () => {
    await create(configMapYaml(ns, "l1", { a: "1" }));
    assert.equal((await k.ok(["label", "cm", "l1", "-n", ns, "env=prod"])).trim(), "configmap/l1 labeled");
    assert.equal((await cm("l1")).metadata.labels?.env, "prod");
    const refused = await k.run(["label", "cm", "l1", "-n", ns, "env=dev"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /'env' already has a value \(prod\), and --overwrite is false/);
    assert.equal((await k.ok(["label", "cm", "l1", "-n", ns, "--overwrite", "env=dev"])).trim(), "configmap/l1 labeled");
    assert.equal((await cm("l1")).metadata.labels?.env, "dev");
    assert.equal((await k.ok(["label", "cm", "l1", "-n", ns, "env-"])).trim(), "configmap/l1 unlabeled");
    assert.equal((await cm("l1")).metadata.labels?.env, undefined);
  });

  void it("annotate adds and removes an annotation", async () => {
    assert.equal((await k.ok(["annotate", "cm", "l1", "-n", ns, "note=hello world"])).trim(), "configmap/l1 annotated");
    assert.equal((await cm("l1")).metadata.annotations?.note, "hello world");
    await k.ok(["annotate", "cm", "l1", "-n", ns, "note-"]);
    assert.equal((await cm("l1")).metadata.annotations?.note, undefined);
  });

  void it("edit saves the editor's change through a patch; no change cancels", async () => {
    await create(configMapYaml(ns, "e1", { v: "before-edit" }));
    const env = { EDITOR: "sed -i s/before-edit/after-edit/", SHELL: "/bin/sh" };
    const out = await k.ok(["edit", "cm", "e1", "-n", ns], { env });
    assert.equal(out.trim(), "configmap/e1 edited");
    assert.deepEqual((await cm("e1")).data, { v: "after-edit" });
    const again = await k.run(["edit", "cm", "e1", "-n", ns], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout + again.stderr, /Edit cancelled, no changes made\./);

    const roleEnv = { EDITOR: "sed -i s/-\\ list/-\\ watch/", SHELL: "/bin/sh" };
    const roleOut = await k.ok(["edit", "role", "r1", "-n", ns], { env: roleEnv });
    assert.equal(roleOut.trim(), "role.rbac.authorization.k8s.io/r1 edited");
    const role = await k.json<{ rules: { verbs: string[] }[] }>(["get", "role", "r1", "-n", ns]);
    assert.deepEqual(role.rules[0]!.verbs, ["get", "watch"]);
  });

  void it("patch with --type json, merge and strategic (the default)", async () => {
    await create(configMapYaml(ns, "p1", { keep: "k" }));
    const patch = (type: string, body: string): Promise<string> => k.ok(["patch", "cm", "p1", "-n", ns, "--type", type, "-p", body]);
    assert.equal((await patch("json", '[{"op":"add","path":"/data/j","value":"1"}]')).trim(), "configmap/p1 patched");
    assert.equal((await patch("merge", '{"data":{"m":"2"}}')).trim(), "configmap/p1 patched");
    assert.equal((await k.ok(["patch", "cm", "p1", "-n", ns, "-p", '{"data":{"s":"3"}}'])).trim(), "configmap/p1 patched");
    assert.deepEqual((await cm("p1")).data, { keep: "k", j: "1", m: "2", s: "3" });
    await patch("merge", '{"data":{"j":null}}');
    assert.deepEqual((await cm("p1")).data, { keep: "k", m: "2", s: "3" });

    const before = (await cm("p1")).metadata.resourceVersion;
    assert.equal((await patch("strategic", '{"data":{"s":"3"}}')).trim(), "configmap/p1 patched (no change)");
    assert.equal((await cm("p1")).metadata.resourceVersion, before, "a no-op patch must not write");

    const failed = await k.run(["patch", "cm", "p1", "-n", ns, "--type", "json", "-p", '[{"op":"test","path":"/data/s","value":"nope"}]']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /\/data\/s/, "the error should name the failing operation's path");
    assert.equal((await cm("p1")).data?.s, "3");
  });

  void it("strategic patch merges finalizers as a set and replaces RBAC subjects", async () => {
    await k.ok(["patch", "cm", "p1", "-n", ns, "-p", '{"metadata":{"finalizers":["example.com/a"]}}']);
    await k.ok(["patch", "cm", "p1", "-n", ns, "-p", '{"metadata":{"finalizers":["example.com/b"]}}']);
    assert.deepEqual((await cm("p1")).metadata.finalizers?.slice().sort(), ["example.com/a", "example.com/b"]);
    await releaseFinalizer("p1");

    await k.ok(["patch", "rolebinding", "rb1", "-n", ns, "-p", '{"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"carol"}]}']);
    const rb = await k.json<{ subjects: { name: string }[] }>(["get", "rolebinding", "rb1", "-n", ns]);
    assert.deepEqual(rb.subjects.map((s) => s.name), ["carol"]);
  });

  void it("delete of a missing object is NotFound; delete -l deletes every match", async () => {
    const missing = await k.run(["delete", "cm", "ghost", "-n", ns]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "ghost" not found/);
    await create([1, 2, 3].map((i) => configMapYaml(ns, `bulk-${i}`, { a: "1" }, { group: "bulk" })).join("---\n"));
    const out = await k.ok(["delete", "cm", "-n", ns, "-l", "group=bulk"]);
    assert.equal(out.trim().split("\n").filter((l) => /^configmap "bulk-\d" deleted/.test(l)).length, 3, out);
    assert.equal((await k.ok(["get", "cm", "-n", ns, "-l", "group=bulk", "-o", "name"])).trim(), "");
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    const suffix = version.replace(".", "-");

    void it(`${version}: delete --wait blocks on a finalizer and returns once the object is gone`, async () => {
      const name = `fin-${suffix}`;
      await create(withFinalizer(name));
      const del = k.stream(["delete", "cm", name, "-n", ns, "--wait=true", "--timeout=60s"], { version });
      try {
        await eventually(`deletionTimestamp on ${name}`, async () => ((await cm(name)).metadata.deletionTimestamp ? true : undefined));
        assert.equal(del.exited(), false, `delete --wait returned while a finalizer holds the object: ${del.stdout()} ${del.stderr()}`);
        await releaseFinalizer(name);
        assert.equal(await del.exit(), 0, del.stderr());
        assert.match(del.stdout(), new RegExp(`^configmap "${name}" deleted`, "m"));
      } finally {
        await del.stop();
      }
      const gone = await k.run(["get", "cm", name, "-n", ns]);
      assert.match(gone.stderr, /NotFound/);
    });

    void it(`${version}: wait --for=delete and wait --for=jsonpath`, async () => {
      const name = `waited-${suffix}`;
      await create(withFinalizer(name));
      await k.ok(["delete", "cm", name, "-n", ns, "--wait=false"]);
      const w = k.stream(["wait", "--for=delete", `cm/${name}`, "-n", ns, "--timeout=60s", "-v=6"], { version });
      try {
        // -v=6 logs each request once its response headers arrive: the watch is then established.
        await w.waitFor(/watch=true/, 20_000, "stderr");
        assert.equal(w.exited(), false, `wait returned while the object still exists: ${w.stdout()} ${w.stderr()}`);
        await releaseFinalizer(name);
        assert.equal(await w.exit(), 0, w.stderr());
        assert.match(w.stdout(), new RegExp(`configmap/${name} condition met`));
      } finally {
        await w.stop();
      }

      const ready = `ready-${suffix}`;
      await create(configMapYaml(ns, ready, { state: "pending" }));
      const j = k.stream(["wait", "--for=jsonpath={.data.state}=done", `cm/${ready}`, "-n", ns, "--timeout=60s"], { version });
      try {
        await k.ok(["patch", "cm", ready, "-n", ns, "--type", "merge", "-p", '{"data":{"state":"done"}}']);
        assert.equal(await j.exit(), 0, j.stderr());
        assert.match(j.stdout(), new RegExp(`configmap/${ready} condition met`));
      } finally {
        await j.stop();
      }
    });
  }
});
