// Real kubectl with CustomResourceDefinitions: establish, CR CRUD with printer columns, status
// subresource, schema validation messages, explain, namespace deletion, CRD deletion.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { ageCell, parseTable, rowWhere } from "../../support/table.ts";
import { configMapYaml, namespaceYaml, widgetCrd } from "./manifests.ts";

const ns = "crs";

function widget(name: string, spec: string, namespace = ns, extraMeta = ""): string {
  return `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
  namespace: ${namespace}${extraMeta}
spec:
${spec}
`;
}

interface Widget {
  apiVersion: string;
  metadata: { name: string; generation: number; resourceVersion: string };
  spec: { size: number; color: string };
  status?: { ready?: boolean };
}

void describe("kubectl with CustomResourceDefinitions", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;
  const get = (name: string): Promise<Widget> => k.json<Widget>(["get", "widget", name, "-n", ns]);

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(ns) });
  });
  after(async () => {
    await server?.dispose();
  });

  void it("create a CRD and wait until it is established", async () => {
    const out = await k.ok(["create", "-f", "-"], { input: widgetCrd });
    assert.equal(out.trim(), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created");
    const w = await k.ok(["wait", "--for", "condition=established", "--timeout=30s", "crd/widgets.example.com"]);
    assert.equal(w.trim(), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met");
    const crds = parseTable(await k.ok(["get", "crd"]));
    assert.deepEqual(crds.header, ["NAME", "CREATED AT"]);
    rowWhere(crds, "NAME", "widgets.example.com");
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    void it(`${version}: discovers the new kind and creates custom objects`, async () => {
      const name = `w-${version.replace(".", "-")}`;
      const out = await k.ok(["create", "-f", "-"], { version, input: widget(name, "  size: 3") });
      assert.equal(out.trim(), `widget.example.com/${name} created`);
      const res = parseTable(await k.ok(["api-resources", "--api-group=example.com"], { version }));
      assert.deepEqual(rowWhere(res, "NAME", "widgets"), { NAME: "widgets", SHORTNAMES: "wd", APIVERSION: "example.com/v1", NAMESPACED: "true", KIND: "Widget" });
    });
  }

  void it("get shows the printer columns, by plural, singular and short name", async () => {
    for (const type of ["widgets", "widget", "wd", "widgets.example.com"]) {
      const t = parseTable(await k.ok(["get", type, "-n", ns]));
      assert.deepEqual(t.header, ["NAME", "SIZE", "COLOR", "READY", "AGE"], `kubectl get ${type}`);
      const row = rowWhere(t, "NAME", "w-1-33");
      assert.equal(row.SIZE, "3");
      assert.equal(row.COLOR, "red", "the schema default must be applied");
      assert.match(row.AGE!, ageCell);
    }
    const w = await get("w-1-33");
    assert.equal(w.apiVersion, "example.com/v1");
    assert.equal(w.metadata.generation, 1);
  });

  void it("patch (merge and json), strategic merge patch is refused, generation counts spec changes", async () => {
    assert.equal((await k.ok(["patch", "widget", "w-1-33", "-n", ns, "--type", "merge", "-p", '{"spec":{"size":5}}'])).trim(), "widget.example.com/w-1-33 patched");
    assert.equal((await k.ok(["patch", "wd", "w-1-33", "-n", ns, "--type", "json", "-p", '[{"op":"replace","path":"/spec/color","value":"blue"}]'])).trim(), "widget.example.com/w-1-33 patched");
    const w = await get("w-1-33");
    assert.deepEqual(w.spec, { size: 5, color: "blue" });
    assert.equal(w.metadata.generation, 3);
    await k.ok(["label", "widget", "w-1-33", "-n", ns, "tier=gold"]);
    assert.equal((await get("w-1-33")).metadata.generation, 3, "a label change must not bump generation");

    const smp = await k.run(["patch", "widget", "w-1-33", "-n", ns, "-p", '{"spec":{"size":6}}']);
    assert.equal(smp.code, 1);
    assert.match(smp.stderr, /UnsupportedMediaType|is not supported by/);
    assert.equal((await get("w-1-33")).spec.size, 5);
  });

  void it("status subresource: only /status changes status", async () => {
    const out = await k.ok(["patch", "widget", "w-1-33", "-n", ns, "--subresource=status", "--type=merge", "-p", '{"status":{"ready":true}}']);
    assert.equal(out.trim(), "widget.example.com/w-1-33 patched");
    const t = parseTable(await k.ok(["get", "widgets", "-n", ns]));
    assert.equal(rowWhere(t, "NAME", "w-1-33").READY, "true");
    const main = await k.ok(["patch", "widget", "w-1-33", "-n", ns, "--type=merge", "-p", '{"status":{"ready":false}}']);
    assert.equal(main.trim(), "widget.example.com/w-1-33 patched (no change)");
    assert.equal((await get("w-1-33")).status?.ready, true);
  });

  void it("apply twice, edit and replace on a custom object", async () => {
    const manifest = widget("applied", "  size: 2");
    assert.equal((await k.ok(["apply", "-f", "-"], { input: manifest })).trim(), "widget.example.com/applied created");
    const rv = (await get("applied")).metadata.resourceVersion;
    assert.equal((await k.ok(["apply", "-f", "-"], { input: manifest })).trim(), "widget.example.com/applied unchanged");
    assert.equal((await get("applied")).metadata.resourceVersion, rv);
    assert.equal((await k.ok(["apply", "-f", "-"], { input: widget("applied", "  size: 4") })).trim(), "widget.example.com/applied configured");
    assert.equal((await get("applied")).spec.size, 4);

    const env = { EDITOR: "sed -i s/color:\\ red/color:\\ green/", SHELL: "/bin/sh" };
    assert.equal((await k.ok(["edit", "widget", "applied", "-n", ns], { env })).trim(), "widget.example.com/applied edited");
    assert.equal((await get("applied")).spec.color, "green");

    // kubectl replace fills in the live resourceVersion (custom resources refuse unconditional
    // updates; client-node's suite checks that 422).
    assert.equal((await k.ok(["replace", "-f", "-"], { input: widget("applied", "  size: 7") })).trim(), "widget.example.com/applied replaced");
    assert.equal((await get("applied")).spec.size, 7);
  });

  void it("schema validation errors name every bad field; unknown fields are rejected strictly", async () => {
    const bad = await k.run(["create", "-f", "-"], { input: widget("bad", "  size: 0\n  color: purple") });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /The Widget "bad" is invalid/);
    assert.match(bad.stderr, /spec\.color: Unsupported value: "purple"/);
    assert.match(bad.stderr, /spec\.size: Invalid value: 0/);
    const typed = await k.run(["create", "-f", "-"], { input: widget("bad", '  size: "big"') });
    assert.match(typed.stderr, /The Widget "bad" is invalid: .*spec\.size/s);
    const missing = await k.run(["create", "-f", "-"], { input: widget("bad", "  color: red") });
    assert.match(missing.stderr, /spec\.size: Required value/);
    const unknown = await k.run(["create", "-f", "-"], { input: widget("bad", "  size: 1\n  extra: 1") });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown field "spec\.extra"/);
    assert.equal((await k.run(["get", "widget", "bad", "-n", ns])).code, 1);
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    void it(`${version}: explain shows the CRD schema's descriptions and types`, async () => {
      const kind = await k.ok(["explain", "widgets"], { version });
      assert.match(kind, /KIND:\s+Widget/);
      assert.match(kind, /VERSION:\s+(example\.com\/)?v1/);
      assert.match(kind, /A Widget is a test object\./);
      assert.match(kind, /^\s+spec\s+<Object>/m);
      const field = await k.ok(["explain", "widgets.spec.size"], { version });
      assert.match(field, /FIELD:\s+size\s+<integer>/);
      assert.match(field, /Number of parts in the widget\./);
      const builtin = await k.ok(["explain", "configmaps.data"], { version });
      assert.match(builtin, /FIELD:\s+data\s+<map\[string\]string>/);
    });
  }

  void it("delete --wait of a custom object", async () => {
    const out = await k.ok(["delete", "widget", "w-1-27", "-n", ns, "--wait=true", "--timeout=30s"]);
    assert.match(out, /^widget\.example\.com "w-1-27" deleted/m);
    assert.match((await k.run(["get", "widget", "w-1-27", "-n", ns])).stderr, /NotFound/);
  });

  void it("namespace deletion waits for finalizers, refuses new content, then deletes everything in it", async () => {
    const doomed = "doomed";
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(doomed) });
    const contents = [
      configMapYaml(doomed, "cm", { a: "1" }),
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: ${doomed}\nstringData:\n  a: b\n`,
      widget("plain", "  size: 1", doomed),
      widget("held", "  size: 1", doomed, '\n  finalizers: ["example.com/hold"]'),
    ];
    await k.ok(["create", "-f", "-"], { input: contents.join("---\n") });
    const del = await k.ok(["delete", "ns", doomed, "--wait=false"]);
    assert.match(del, new RegExp(`^namespace "${doomed}" deleted`, "m"));

    const terminating = async (): Promise<string> => rowWhere(parseTable(await k.ok(["get", "ns", doomed])), "NAME", doomed).STATUS!;
    assert.equal(await terminating(), "Terminating");
    const refused = await k.run(["create", "-f", "-"], { input: configMapYaml(doomed, "late", { a: "1" }) });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Forbidden.*unable to create new content in namespace doomed because it is being terminated/s);

    const w = k.stream(["wait", "--for=delete", `ns/${doomed}`, "--timeout=90s"]);
    try {
      await k.ok(["patch", "widget", "held", "-n", doomed, "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
      assert.equal(await w.exit(90_000), 0, w.stderr());
    } finally {
      await w.stop();
    }
    for (const type of ["configmaps", "secrets", "widgets"]) {
      const all = await k.ok(["get", type, "-A", "-o", "name", "--field-selector", `metadata.namespace=${doomed}`]);
      assert.equal(all.trim(), "", `${type} left behind in the deleted namespace`);
    }
  });

  void it("deleting the CRD deletes its objects and its API", async () => {
    const out = await k.ok(["delete", "crd", "widgets.example.com", "--timeout=60s"]);
    assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io "widgets\.example\.com" deleted/);
    const gone = await k.run(["get", "widgets", "-n", ns]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /doesn't have a resource type "widgets"|could not find the requested resource/);

    await k.ok(["create", "-f", "-"], { input: widgetCrd });
    await k.ok(["wait", "--for", "condition=established", "--timeout=30s", "crd/widgets.example.com"]);
    const again = await k.run(["get", "widgets", "-n", ns, "-o", "name"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), "", "custom objects must not survive the deletion of their CRD");
  });
});
