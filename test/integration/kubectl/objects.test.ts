// Real kubectl (1.33 and 1.27) against the real server binary: discovery, create, apply, replace,
// server-side dry run, and the error messages users see for invalid objects.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectl, kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { parseTable, rowWhere } from "../../support/table.ts";
import { configMapYaml, everyKindYaml, namespaceYaml, roleYaml } from "./manifests.ts";

const versions: KubectlVersion[] = ["1.33", "1.27"];

interface Meta {
  metadata: { name: string; namespace?: string; resourceVersion: string; uid: string; annotations?: Record<string, string> };
}
interface ConfigMap extends Meta {
  data?: Record<string, string>;
}

void describe("kubectl: discovery, create, apply", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of versions) {
    const ns = `objs-${version.replace(".", "-")}`;

    void it(`${version}: discovery uses aggregated discovery and lists the built-in resources`, async () => {
      // A fresh HOME means an empty discovery cache, so the discovery requests show up in the log.
      const home = join(server.dataDir, `fresh-home-${version}`);
      const r = await kubectl(version, ["api-resources", "-v=6"], { kubeconfig: server.kubeconfig, homeDir: home });
      assert.equal(r.code, 0, r.stderr);
      const table = parseTable(r.stdout);
      assert.deepEqual(table.header, ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
      assert.deepEqual(rowWhere(table, "NAME", "configmaps"), { NAME: "configmaps", SHORTNAMES: "cm", APIVERSION: "v1", NAMESPACED: "true", KIND: "ConfigMap" });
      assert.deepEqual(rowWhere(table, "NAME", "namespaces"), { NAME: "namespaces", SHORTNAMES: "ns", APIVERSION: "v1", NAMESPACED: "false", KIND: "Namespace" });
      assert.equal(rowWhere(table, "NAME", "secrets").KIND, "Secret");
      assert.equal(rowWhere(table, "NAME", "serviceaccounts").SHORTNAMES, "sa");
      assert.equal(rowWhere(table, "NAME", "roles").APIVERSION, "rbac.authorization.k8s.io/v1");
      assert.equal(rowWhere(table, "NAME", "customresourcedefinitions").NAMESPACED, "false");
      // kubectl 1.26+ ask for aggregated discovery (1.27: v2beta1, 1.30+: v2). When the server answers it,
      // kubectl never fetches the per-group-version documents.
      assert.match(r.stderr, /\/apis\?timeout=/, "kubectl -v=6 should log its discovery requests");
      assert.doesNotMatch(r.stderr, /\/apis\/rbac\.authorization\.k8s\.io\/v1\?timeout=/, "aggregated discovery was not used");
      assert.doesNotMatch(r.stderr, /\/api\/v1\?timeout=/, "aggregated discovery was not used for the core group");
      assert.doesNotMatch(r.stderr, /couldn't get resource list|unable to retrieve the complete list/);
    });

    void it(`${version}: version and api-versions`, async () => {
      const v = await k.json<{ serverVersion: { major: string; minor: string; gitVersion: string } }>(["version"], { version });
      assert.equal(v.serverVersion.major, "1");
      assert.match(v.serverVersion.gitVersion, /^v1\.\d+\.\d+/);
      const groups = (await k.ok(["api-versions"], { version })).split("\n");
      for (const gv of ["v1", "rbac.authorization.k8s.io/v1", "apiextensions.k8s.io/v1", "authorization.k8s.io/v1", "coordination.k8s.io/v1"]) {
        assert.ok(groups.includes(gv), `api-versions lacks ${gv}: ${groups.join(" ")}`);
      }
    });

    void it(`${version}: create -f creates a Namespace, ConfigMap, Secret, ServiceAccount, Role and RoleBinding`, async () => {
      const out = await k.ok(["create", "-f", "-"], { version, input: everyKindYaml(ns) });
      assert.deepEqual(out.trim().split("\n"), [
        `namespace/${ns} created`,
        "configmap/cm1 created",
        "secret/s1 created",
        "serviceaccount/sa1 created",
        "role.rbac.authorization.k8s.io/r1 created",
        "rolebinding.rbac.authorization.k8s.io/rb1 created",
      ]);
      const cm = await k.json<ConfigMap>(["get", "cm", "cm1", "-n", ns], { version });
      assert.deepEqual(cm.data, { a: "1", b: "2" });
      assert.match(cm.metadata.resourceVersion, /^[1-9]\d*$/);
      const secret = await k.json<{ data: Record<string, string>; stringData?: unknown; type: string }>(["get", "secret", "s1", "-n", ns], { version });
      assert.equal(secret.type, "Opaque");
      assert.equal(secret.stringData, undefined, "stringData must be folded into data");
      assert.deepEqual(secret.data, { username: Buffer.from("admin").toString("base64"), password: Buffer.from("secret").toString("base64") });
      const rb = await k.json<{ roleRef: { kind: string; name: string }; subjects: unknown[] }>(["get", "rolebinding", "rb1", "-n", ns], { version });
      assert.deepEqual(rb.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r1" });
      assert.equal(rb.subjects.length, 3);
    });

    // kubectl >= 1.32 sends these typed-client creates as protobuf (application/vnd.kubernetes.protobuf).
    void it(`${version}: create generators: namespace, configmap, secret, serviceaccount, role, rolebinding`, async () => {
      const g = `gen-${version.replace(".", "-")}`;
      const steps: [string[], string][] = [
        [["create", "namespace", g], `namespace/${g} created`],
        [["create", "configmap", "c", "-n", g, "--from-literal=a=1"], "configmap/c created"],
        [["create", "secret", "generic", "s", "-n", g, "--from-literal=p=secret"], "secret/s created"],
        [["create", "serviceaccount", "sa", "-n", g], "serviceaccount/sa created"],
        [["create", "role", "r", "-n", g, "--verb=get", "--resource=configmaps"], "role.rbac.authorization.k8s.io/r created"],
        [["create", "rolebinding", "rb", "-n", g, "--role=r", "--user=alice"], "rolebinding.rbac.authorization.k8s.io/rb created"],
      ];
      for (const [args, want] of steps) {
        const r = await k.run(args, { version });
        assert.equal(r.code, 0, `kubectl ${version} ${args.join(" ")}: ${r.stderr}`);
        assert.equal(r.stdout.trim(), want);
      }
      assert.deepEqual((await k.json<ConfigMap>(["get", "cm", "c", "-n", g])).data, { a: "1" });
      assert.deepEqual((await k.json<{ data: Record<string, string> }>(["get", "secret", "s", "-n", g])).data, { p: Buffer.from("secret").toString("base64") });
      const role = await k.json<{ rules: unknown[] }>(["get", "role", "r", "-n", g]);
      assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }]);
    });

    void it(`${version}: create of an existing object reports AlreadyExists`, async () => {
      const r = await k.run(["create", "-f", "-"], { version, input: configMapYaml(ns, "cm1", { a: "1" }) });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Error from server \(AlreadyExists\): error when creating "STDIN": configmaps "cm1" already exists/);
    });

    void it(`${version}: apply twice is created then unchanged (no write), a change is configured`, async () => {
      const manifest = configMapYaml(ns, "applied", { k: "v1" });
      assert.equal((await k.ok(["apply", "-f", "-"], { version, input: manifest })).trim(), "configmap/applied created");
      const first = await k.json<ConfigMap>(["get", "cm", "applied", "-n", ns], { version });
      assert.ok(first.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"], "last-applied annotation missing");

      assert.equal((await k.ok(["apply", "-f", "-"], { version, input: manifest })).trim(), "configmap/applied unchanged");
      const second = await k.json<ConfigMap>(["get", "cm", "applied", "-n", ns], { version });
      assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion, "an unchanged apply must not write");

      const changed = configMapYaml(ns, "applied", { k: "v2" });
      assert.equal((await k.ok(["apply", "-f", "-"], { version, input: changed })).trim(), "configmap/applied configured");
      const third = await k.json<ConfigMap>(["get", "cm", "applied", "-n", ns], { version });
      assert.notEqual(third.metadata.resourceVersion, first.metadata.resourceVersion);
      assert.deepEqual(third.data, { k: "v2" });
      assert.equal((await k.ok(["apply", "-f", "-"], { version, input: changed })).trim(), "configmap/applied unchanged");
    });

    void it(`${version}: apply of an RBAC Role replaces its rules list`, async () => {
      const out1 = await k.ok(["apply", "-f", "-"], { version, input: roleYaml(ns, "applied-role", ["get"]) });
      assert.equal(out1.trim(), "role.rbac.authorization.k8s.io/applied-role created");
      const out2 = await k.ok(["apply", "-f", "-"], { version, input: roleYaml(ns, "applied-role", ["get"]) });
      assert.equal(out2.trim(), "role.rbac.authorization.k8s.io/applied-role unchanged");
      const out3 = await k.ok(["apply", "-f", "-"], { version, input: roleYaml(ns, "applied-role", ["list", "watch"]) });
      assert.equal(out3.trim(), "role.rbac.authorization.k8s.io/applied-role configured");
      const role = await k.json<{ rules: { verbs: string[] }[] }>(["get", "role", "applied-role", "-n", ns], { version });
      assert.deepEqual(role.rules.map((r) => r.verbs), [["list", "watch"]]);
    });

    void it(`${version}: replace -f and create --dry-run=server`, async () => {
      await k.ok(["create", "-f", "-"], { version, input: configMapYaml(ns, "replaced", { x: "1" }) });
      const out = await k.ok(["replace", "-f", "-"], { version, input: configMapYaml(ns, "replaced", { x: "2" }) });
      assert.equal(out.trim(), "configmap/replaced replaced");
      assert.deepEqual((await k.json<ConfigMap>(["get", "cm", "replaced", "-n", ns], { version })).data, { x: "2" });

      const dry = await k.ok(["create", "--dry-run=server", "-f", "-"], { version, input: configMapYaml(ns, "dry", { x: "1" }) });
      assert.equal(dry.trim(), "configmap/dry created (server dry run)");
      const gone = await k.run(["get", "cm", "dry", "-n", ns], { version });
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "dry" not found/);
    });

    void it(`${version}: diff shows nothing for the live state and the change for an edit`, async () => {
      const same = await k.run(["diff", "-f", "-"], { version, input: configMapYaml(ns, "replaced", { x: "2" }) });
      assert.equal(same.code, 0, `diff of an unchanged object: ${same.stdout}${same.stderr}`);
      assert.equal(same.stdout, "");
      const changed = await k.run(["diff", "-f", "-"], { version, input: configMapYaml(ns, "replaced", { x: "3" }) });
      assert.equal(changed.code, 1, changed.stderr);
      assert.match(changed.stdout, /^-\s+x: "2"$/m);
      assert.match(changed.stdout, /^\+\s+x: "3"$/m);
    });

    void it(`${version}: server-side validation errors are shown as kubectl users know them`, async () => {
      const badName = await k.run(["create", "-f", "-"], { version, input: configMapYaml(ns, "Bad_Name", { a: "1" }) });
      assert.equal(badName.code, 1);
      assert.match(badName.stderr, /The ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);

      const badRef = roleBindingWithKind(ns, "bad-rb", "Foo");
      const rb = await k.run(["create", "-f", "-"], { version, input: badRef });
      assert.equal(rb.code, 1);
      assert.match(rb.stderr, /The RoleBinding "bad-rb" is invalid: .*roleRef\.kind/s);

      // kubectl >= 1.25 sends fieldValidation=Strict and leaves unknown fields to the server.
      const unknown = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\n  namespace: ${ns}\nspec:\n  foo: bar\n`;
      const strict = await k.run(["create", "-f", "-"], { version, input: unknown });
      assert.equal(strict.code, 1);
      assert.match(strict.stderr, /Error from server \(BadRequest\)/);
      assert.match(strict.stderr, /unknown field "spec"/);
      const created = await k.run(["get", "cm", "strict", "-n", ns], { version });
      assert.equal(created.code, 1, "a strictly rejected object must not be stored");
    });
  }

  void it("1.33: create into a namespace that does not exist is NotFound", async () => {
    const r = await k.run(["create", "-f", "-"], { input: configMapYaml("no-such-ns", "x", { a: "1" }) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): error when creating "STDIN": namespaces "no-such-ns" not found/);
    const ns = await k.ok(["create", "-f", "-"], { input: namespaceYaml("made-later") });
    assert.equal(ns.trim(), "namespace/made-later created");
  });
});

function roleBindingWithKind(ns: string, name: string, kind: string): string {
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${name}
  namespace: ${ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ${kind}
  name: r1
subjects:
- kind: User
  apiGroup: rbac.authorization.k8s.io
  name: alice
`;
}
