// Real kubectl 1.33 reading objects: server-side Table columns, output formats, selectors,
// all-namespaces, labels, sorting, pagination and describe.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl } from "../../support/kubectl.ts";
import { ageCell, parseTable, rowWhere } from "../../support/table.ts";
import { configMapYaml, everyKindYaml, namespaceYaml } from "./manifests.ts";

const ns = "reads";

void describe("kubectl get and describe", { timeout: 180_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;
  const names = async (args: string[]): Promise<string[]> =>
    (await k.ok([...args, "-o", "name"])).split("\n").filter((l) => l !== "").map((l) => l.replace(/^[^/]+\//, "")).sort();

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: everyKindYaml(ns) });
    const more = [
      configMapYaml(ns, "lbl-a", { order: "3" }, { app: "web", tier: "front" }),
      configMapYaml(ns, "lbl-b", { order: "2", x: "y" }, { app: "db", tier: "back" }),
      configMapYaml(ns, "lbl-c", { order: "1" }),
      namespaceYaml("elsewhere"),
      configMapYaml("elsewhere", "cm1", { only: "here" }),
    ];
    await k.ok(["create", "-f", "-"], { input: more.join("---\n") });
  });
  after(async () => {
    await server?.dispose();
  });

  void it("get ns lists the default namespaces as Active", async () => {
    const t = parseTable(await k.ok(["get", "ns"]));
    assert.deepEqual(t.header, ["NAME", "STATUS", "AGE"]);
    for (const name of ["default", "kube-system", "kube-public", "kube-node-lease", ns]) {
      const row = rowWhere(t, "NAME", name);
      assert.equal(row.STATUS, "Active");
      assert.match(row.AGE!, ageCell);
    }
  });

  void it("get prints the server's table columns per kind", async () => {
    const cms = parseTable(await k.ok(["get", "cm", "-n", ns]));
    assert.deepEqual(cms.header, ["NAME", "DATA", "AGE"]);
    assert.equal(rowWhere(cms, "NAME", "cm1").DATA, "2");
    assert.equal(rowWhere(cms, "NAME", "lbl-b").DATA, "2");
    assert.match(rowWhere(cms, "NAME", "cm1").AGE!, ageCell);

    const secrets = parseTable(await k.ok(["get", "secrets", "-n", ns]));
    assert.deepEqual(secrets.header, ["NAME", "TYPE", "DATA", "AGE"]);
    assert.deepEqual({ ...rowWhere(secrets, "NAME", "s1"), AGE: "" }, { NAME: "s1", TYPE: "Opaque", DATA: "2", AGE: "" });

    const rbs = parseTable(await k.ok(["get", "rolebindings", "-n", ns]));
    assert.deepEqual(rbs.header, ["NAME", "ROLE", "AGE"]);
    assert.equal(rowWhere(rbs, "NAME", "rb1").ROLE, "Role/r1");

    const wide = parseTable(await k.ok(["get", "rolebindings", "-n", ns, "-o", "wide"]));
    assert.deepEqual(wide.header, ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]);
    const row = rowWhere(wide, "NAME", "rb1");
    assert.deepEqual([row.USERS, row.GROUPS, row.SERVICEACCOUNTS], ["alice", "devs", `${ns}/sa1`]);

    const sas = parseTable(await k.ok(["get", "sa", "-n", ns]));
    assert.equal(sas.header[0], "NAME");
    rowWhere(sas, "NAME", "sa1");
  });

  void it("get -o yaml, -o json, -o name and -o jsonpath", async () => {
    const y = parse(await k.ok(["get", "cm", "cm1", "-n", ns, "-o", "yaml"])) as Record<string, unknown> & {
      metadata: Record<string, string>;
    };
    assert.equal(y.apiVersion, "v1");
    assert.equal(y.kind, "ConfigMap");
    assert.deepEqual(y.data, { a: "1", b: "2" });
    assert.equal(y.metadata.name, "cm1");
    assert.equal(y.metadata.namespace, ns);
    assert.match(y.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.match(y.metadata.resourceVersion!, /^[1-9]\d*$/);
    assert.match(y.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const list = await k.json<{ kind: string; items: { apiVersion: string; kind: string; metadata: { name: string } }[] }>(["get", "cm", "-n", ns]);
    assert.equal(list.kind, "List");
    assert.ok(list.items.length >= 4);
    for (const item of list.items) {
      assert.equal(item.apiVersion, "v1");
      assert.equal(item.kind, "ConfigMap");
    }
    assert.equal((await k.ok(["get", "cm", "cm1", "-n", ns, "-o", "name"])).trim(), "configmap/cm1");
    assert.equal(await k.ok(["get", "cm", "cm1", "-n", ns, "-o", "jsonpath={.data.b}"]), "2");
  });

  void it("get -l filters with equality, set and existence selectors", async () => {
    assert.deepEqual(await names(["get", "cm", "-n", ns, "-l", "app=web"]), ["lbl-a"]);
    assert.deepEqual(await names(["get", "cm", "-n", ns, "-l", "app in (web,db)"]), ["lbl-a", "lbl-b"]);
    assert.deepEqual(await names(["get", "cm", "-n", ns, "-l", "app,tier=back"]), ["lbl-b"]);
    const noApp = await names(["get", "cm", "-n", ns, "-l", "!app"]);
    assert.ok(noApp.includes("lbl-c") && noApp.includes("cm1") && !noApp.includes("lbl-a") && !noApp.includes("lbl-b"), noApp.join(" "));
    // != and notin also match objects without the key.
    const notWeb = await names(["get", "cm", "-n", ns, "-l", "app!=web"]);
    assert.ok(notWeb.includes("lbl-b") && notWeb.includes("lbl-c") && !notWeb.includes("lbl-a"), notWeb.join(" "));
    const notFront = await names(["get", "cm", "-n", ns, "-l", "tier notin (front)"]);
    assert.ok(notFront.includes("lbl-b") && notFront.includes("cm1") && !notFront.includes("lbl-a"), notFront.join(" "));
    const none = await k.run(["get", "cm", "-n", ns, "-l", "app=nothing"]);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /No resources found in reads namespace\./);
  });

  void it("get --field-selector on metadata.name and on a kind's own field", async () => {
    assert.deepEqual(await names(["get", "cm", "-n", ns, "--field-selector", "metadata.name=lbl-b"]), ["lbl-b"]);
    const notB = await names(["get", "cm", "-n", ns, "--field-selector", "metadata.name!=lbl-b"]);
    assert.ok(!notB.includes("lbl-b") && notB.includes("lbl-a"));
    assert.deepEqual(await names(["get", "secrets", "-n", ns, "--field-selector", "type=Opaque"]), ["s1"]);
    assert.deepEqual(await names(["get", "secrets", "-n", ns, "--field-selector", "type!=Opaque"]), []);
    // Every namespace also gets kube-root-ca.crt (asynchronously, as in Kubernetes).
    const all = (await names(["get", "cm", "-A", "--field-selector", "metadata.namespace=elsewhere"])).filter((n) => n !== "kube-root-ca.crt");
    assert.deepEqual(all, ["cm1"]);
    const bad = await k.run(["get", "cm", "-n", ns, "--field-selector", "data.a=1"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /BadRequest/);
    assert.match(bad.stderr, /data\.a/);
  });

  void it("get -A shows the NAMESPACE column from the rows' object metadata", async () => {
    const t = parseTable(await k.ok(["get", "cm", "-A"]));
    assert.deepEqual(t.header, ["NAMESPACE", "NAME", "DATA", "AGE"]);
    const cm1s = t.records.filter((r) => r.NAME === "cm1").map((r) => r.NAMESPACE).sort();
    assert.deepEqual(cm1s, ["elsewhere", ns].sort());
    assert.equal(t.records.find((r) => r.NAME === "cm1" && r.NAMESPACE === "elsewhere")?.DATA, "1");
  });

  void it("get --show-labels and -L", async () => {
    const t = parseTable(await k.ok(["get", "cm", "-n", ns, "--show-labels"]));
    assert.deepEqual(t.header, ["NAME", "DATA", "AGE", "LABELS"]);
    assert.equal(rowWhere(t, "NAME", "lbl-a").LABELS, "app=web,tier=front");
    assert.equal(rowWhere(t, "NAME", "lbl-c").LABELS, "<none>");
    const l = parseTable(await k.ok(["get", "cm", "-n", ns, "-L", "tier"]));
    assert.deepEqual(l.header, ["NAME", "DATA", "AGE", "TIER"]);
    assert.equal(rowWhere(l, "NAME", "lbl-b").TIER, "back");
  });

  void it("get --sort-by sorts on a field of the full object", async () => {
    const t = parseTable(await k.ok(["get", "cm", "-n", ns, "-l", "app", "--sort-by", ".data.order"]));
    assert.deepEqual(t.records.map((r) => r.NAME), ["lbl-b", "lbl-a"]);
    const rev = parseTable(await k.ok(["get", "cm", "-n", ns, "--sort-by", ".metadata.name"]));
    const sortedNames = rev.records.map((r) => r.NAME!);
    assert.deepEqual(sortedNames, [...sortedNames].sort());
  });

  void it("get --chunk-size pages through the list with continue tokens", async () => {
    const chunked = await names(["get", "cm", "-A", "--chunk-size", "2"]);
    const whole = await names(["get", "cm", "-A", "--chunk-size", "0"]);
    assert.ok(whole.length >= 5, whole.join(" "));
    assert.deepEqual(chunked, whole);
  });

  void it("get of a missing object is NotFound", async () => {
    const r = await k.run(["get", "cm", "nope", "-n", ns]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): configmaps "nope" not found/);
  });

  void it("describe a ConfigMap, a Secret and a Role", async () => {
    const cm = await k.ok(["describe", "cm", "lbl-a", "-n", ns]);
    assert.match(cm, /^Name:\s+lbl-a$/m);
    assert.match(cm, /^Namespace:\s+reads$/m);
    assert.match(cm, /^Labels:\s+app=web\n\s+tier=front$/m);
    assert.match(cm, /^order:\n-+\n3$/m);
    assert.match(cm, /^Events:\s+<none>/m);

    const secret = await k.ok(["describe", "secret", "s1", "-n", ns]);
    assert.match(secret, /^Type:\s+Opaque$/m);
    assert.match(secret, /^password:\s+6 bytes$/m);
    assert.match(secret, /^username:\s+5 bytes$/m);
    assert.doesNotMatch(secret, /secret\s*$/m, "describe must not print secret values");

    const role = await k.ok(["describe", "role", "r1", "-n", ns]);
    assert.match(role, /^\s*configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
  });
});
