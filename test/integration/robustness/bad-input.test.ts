// Malformed, mismatched, oversized and unsupported requests sent as raw bytes to the real server:
// each must get the right 4xx code and a JSON Status body, and must change nothing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { rawClient, type RawClient, type RawResponse } from "../../support/http.ts";
import { writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { expectClientError, expectStatus } from "./status.ts";

const ns = "bad";
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const json = { "content-type": "application/json" };
const MiB = 1024 * 1024;

void describe("bad input", { timeout: 120_000 }, () => {
  let server: ApiServerProcess;
  let c: RawClient;
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = json): Promise<RawResponse> =>
    c.request({ method: "POST", path, body, headers });
  const patch = (name: string, type: string, body: string): Promise<RawResponse> =>
    c.request({ method: "PATCH", path: `${cms}/${name}`, body, headers: { "content-type": type } });
  const cm = (name: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" }, ...extra });
  const names = async (): Promise<string[]> =>
    (await c.request({ path: cms })).json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name);

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    c = rawClient(server.kubeconfig);
    expectCreated(await post("/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })));
    expectCreated(await post(cms, cm("target")));
  });
  after(async () => {
    c?.close();
    await server?.dispose();
  });

  void it("malformed JSON and YAML bodies are 400", async () => {
    const bodies: [string, Record<string, string>][] = [
      ['{"apiVersion":"v1","kind":"ConfigMap",', json],
      ["{not json}", json],
      ["", json],
      ["[1,2,3]", json],
      ['"a string"', json],
      ["null", json],
      ["42", json],
      ["apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n", { "content-type": "application/yaml" }],
      ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n\tdata: tab\n", { "content-type": "application/yaml" }],
      ["- just\n- a list\n", { "content-type": "application/yaml" }],
    ];
    for (const [body, headers] of bodies) expectStatus(await post(cms, body, headers), 400, "BadRequest", JSON.stringify(body));
    const yamlOk = await post(cms, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: b\n", { "content-type": "application/yaml" });
    expectCreated(yamlOk);
  });

  void it("a kind, apiVersion or namespace that does not match the URL is 400", async () => {
    const cases = [
      JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "k1" } }),
      JSON.stringify({ apiVersion: "v2", kind: "ConfigMap", metadata: { name: "k2" } }),
      JSON.stringify({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ConfigMap", metadata: { name: "k3" } }),
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "k4", namespace: "default" } }),
    ];
    for (const body of cases) expectStatus(await post(cms, body), 400, "BadRequest", body);
    const put = await c.request({ method: "PUT", path: `${cms}/target`, body: cm("other-name"), headers: json });
    expectStatus(put, 400, "BadRequest", "PUT with a body name that differs from the URL");
    assert.ok(!(await names()).some((n) => /^k\d$|^other-name$/.test(n)));
  });

  void it("invalid names and metadata are 422 Invalid with field causes", async () => {
    for (const name of ["Bad_Name", "-leading", "trailing-", "with space", "a".repeat(254), "UPPER"]) {
      const s = expectStatus(await post(cms, cm(name)), 422, "Invalid", name);
      assert.ok(s.details?.causes?.some((cause) => cause.field === "metadata.name"), `no metadata.name cause for ${name}: ${JSON.stringify(s)}`);
    }
    const noName = expectStatus(await post(cms, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: {} })), 422, "Invalid");
    assert.match(noName.message ?? "", /name or generateName is required/);
    const nsBad = await post("/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "dotted.name" } }));
    expectStatus(nsBad, 422, "Invalid", "a namespace name must be a DNS label");
    const label = expectStatus(await post(cms, cm("lbl", { metadata: { name: "lbl", labels: { k: "v".repeat(64) } } })), 422, "Invalid");
    assert.ok(label.details?.causes?.some((cause) => cause.field?.startsWith("metadata.labels")), JSON.stringify(label));
    const big = { metadata: { name: "ann", annotations: { a: "x".repeat(300 * 1024) } } };
    const ann = expectStatus(await post(cms, cm("ann", big)), 422, "Invalid");
    assert.ok(ann.details?.causes?.some((cause) => cause.field?.startsWith("metadata.annotations")), JSON.stringify(ann));
  });

  void it("wrongly typed metadata fields are a 4xx, never a 500", async () => {
    const metas: unknown[] = [
      { name: true },
      { name: 1.5 },
      { name: ["a"] },
      { generateName: 5 },
      { name: "f1", finalizers: true },
      { name: "f2", finalizers: [{}] },
      { name: "f3", finalizers: [null] },
      { name: "l1", labels: false },
      { name: "l2", labels: { a: 1 } },
      { name: "a1", annotations: { a: {} } },
      { name: "o1", ownerReferences: "me" },
      "just a string",
    ];
    // Every case is tried and every wrong answer listed, so one report shows them all.
    const wrong: string[] = [];
    const check = (res: RawResponse, what: string): void => {
      try {
        expectClientError(res, what);
      } catch (e) {
        wrong.push((e as Error).message.split("\n")[0]!.slice(0, 300));
      }
    };
    for (const metadata of metas) {
      check(await post(cms, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata })), `metadata ${JSON.stringify(metadata)}`);
    }
    const rb = JSON.stringify({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: false }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" } });
    check(await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, rb), "RoleBinding with metadata.name false");
    assert.deepEqual(wrong, []);
  });

  void it("bodies over 3 MiB are 413, with and without Content-Length; smaller ones pass", async () => {
    const huge = cm("huge", { data: { a: "x".repeat(3 * MiB + 10) } });
    expectStatus(await post(cms, huge), 413, "RequestEntityTooLarge", "POST with Content-Length");
    expectStatus(await c.request({ method: "POST", path: cms, body: huge, headers: json, chunked: true }), 413, "RequestEntityTooLarge", "chunked POST");
    expectStatus(await c.request({ method: "PUT", path: `${cms}/target`, body: huge, headers: json }), 413, "RequestEntityTooLarge", "PUT");
    const bigPatch = JSON.stringify({ data: { a: "y".repeat(3 * MiB + 10) } });
    expectStatus(await patch("target", "application/merge-patch+json", bigPatch), 413, "RequestEntityTooLarge", "PATCH");
    expectCreated(await post(cms, cm("mid", { data: { a: "z".repeat(200 * 1024) } })));
    // The connection and the server are still fine afterwards.
    assert.equal((await c.request({ path: `${cms}/target` })).status, 200);
  });

  void it("fieldValidation=Strict rejects unknown and duplicate fields with 400 naming them", async () => {
    const body = cm("strict1", { spec: { x: 1 }, extra: true });
    const s = expectStatus(await post(`${cms}?fieldValidation=Strict`, body), 400, "BadRequest");
    assert.match(s.message ?? "", /unknown field "spec"/);
    assert.match(s.message ?? "", /unknown field "extra"/);
    const nested = expectStatus(await post(`${cms}?fieldValidation=Strict`, cm("strict2", { metadata: { name: "strict2", bogus: 1 } })), 400, "BadRequest");
    assert.match(nested.message ?? "", /unknown field "metadata\.bogus"/);
    const dup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict3"},"data":{"a":"1","a":"2"}}';
    const d = expectStatus(await post(`${cms}?fieldValidation=Strict`, dup), 400, "BadRequest");
    assert.match(d.message ?? "", /duplicate field "data\.a"|duplicate field/);
    expectStatus(await post(`${cms}?fieldValidation=Sometimes`, cm("strict4")), 400, "BadRequest", "unknown fieldValidation value");
    assert.ok(!(await names()).some((n) => n.startsWith("strict")));

    const warned = await post(`${cms}?fieldValidation=Warn`, cm("warned", { extra: true }));
    expectCreated(warned);
    // RFC 7234 warn-text is a quoted-string: the server escapes the quotes, kubectl unescapes them.
    assert.equal(String(warned.headers.warning ?? ""), '299 - "unknown field \\"extra\\""');
    const ignored = await post(cms, cm("ignored", { extra: true }));
    expectCreated(ignored);
    assert.equal(ignored.json<Record<string, unknown>>().extra, undefined, "unknown fields are dropped");
  });

  void it("patches that cannot be applied are 4xx and change nothing", async () => {
    const before = (await c.request({ path: `${cms}/target` })).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const cases: [string, string, number | undefined][] = [
      ["application/json-patch+json", "{}", 400],
      ["application/json-patch+json", "[{", 400],
      ["application/json-patch+json", '[{"op":"frobnicate","path":"/data/a"}]', undefined],
      ["application/json-patch+json", '[{"op":"test","path":"/data/a","value":"nope"}]', undefined],
      ["application/json-patch+json", '[{"op":"remove","path":"/data/missing"}]', undefined],
      ["application/json-patch+json", '[{"op":"replace","path":"/metadata/name","value":"renamed"}]', undefined],
      ["application/merge-patch+json", "{bad", 400],
      ["application/merge-patch+json", '{"data":5}', undefined],
      ["application/merge-patch+json", '{"metadata":{"name":"renamed"}}', undefined],
      ["application/merge-patch+json", '{"metadata":{"labels":{"bad key!":"v"}}}', 422],
      ["application/strategic-merge-patch+json", '{"data":{"$patch":"bogus"}}', undefined],
      ["application/strategic-merge-patch+json", '"just a string"', undefined],
      ["application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\n", undefined],
    ];
    for (const [type, body, code] of cases) {
      const res = await patch("target", type, body);
      if (code === undefined) expectClientError(res, `${type} ${body}`);
      else expectStatus(res, code, undefined, `${type} ${body}`);
    }
    const ops = JSON.stringify(Array.from({ length: 10_001 }, (_, i) => ({ op: "add", path: `/data/k${i}`, value: "v" })));
    expectStatus(await patch("target", "application/json-patch+json", ops), 413, "RequestEntityTooLarge", "10001 JSON patch operations");
    expectStatus(await patch("missing", "application/merge-patch+json", '{"data":{"a":"2"}}'), 404, "NotFound");
    const after = (await c.request({ path: `${cms}/target` })).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    assert.equal(after, before, "a failed patch must not write");
  });

  void it("unsupported content types are 415, unacceptable Accept is 406", async () => {
    for (const type of ["text/plain", "application/xml", "application/cbor", "multipart/form-data"]) {
      expectStatus(await post(cms, cm("ct"), { "content-type": type }), 415, "UnsupportedMediaType", type);
    }
    // Protobuf is accepted for built-in kinds (kubectl >= 1.32 sends it), so JSON bytes labelled as
    // protobuf are a malformed body.
    expectClientError(await post(cms, cm("ct"), { "content-type": "application/vnd.kubernetes.protobuf" }), "JSON sent as protobuf");
    for (const type of ["application/json", "text/plain", "application/xml"]) {
      expectStatus(await patch("target", type, '{"data":{"a":"2"}}'), 415, "UnsupportedMediaType", `PATCH ${type}`);
    }
    const res = await c.request({ path: `${cms}/target`, headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expectStatus(res, 406, "NotAcceptable");
  });

  void it("bad query parameters are 4xx", async () => {
    const paths = [
      `${cms}?labelSelector=${encodeURIComponent("a in (b")}`,
      `${cms}?labelSelector=${encodeURIComponent("a=b=c")}`,
      `${cms}?fieldSelector=${encodeURIComponent("spec.nothing=1")}`,
      `${cms}?continue=not-a-token`,
      `${cms}?limit=5&continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":"x","start":1}').toString("base64url")}`,
      `${cms}?resourceVersion=abc`,
      `${cms}?resourceVersionMatch=Exact`,
      `${cms}?watch=true&sendInitialEvents=true&timeoutSeconds=1`,
      `${cms}?watch=true&timeoutSeconds=abc`,
    ];
    for (const path of paths) expectClientError(await c.request({ path }), path);
    // Valid or not, these must never be a server error.
    const token = Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"x"}').toString("base64url");
    for (const path of [`${cms}?limit=99999999999999999999`, `${cms}?limit=99999999999999999999&continue=${token}`, `${cms}?limit=-1`, `${cms}?limit=0&continue=${token}`]) {
      const res = await c.request({ path });
      assert.ok(res.status < 500, `${path} -> ${res.status} ${res.body.slice(0, 300)}`);
      if (res.status >= 400) expectClientError(res, path);
    }
    expectStatus(await post(`${cms}?dryRun=Yes`, cm("dry")), 422, "Invalid", "dryRun=Yes");
  });

  void it("unknown paths are 404, wrong methods 405, bad credentials 401, no credentials 403 — all as Status", async () => {
    expectStatus(await c.request({ path: "/apis/nope.example.com/v1/things" }), 404, "NotFound");
    expectStatus(await c.request({ path: `/api/v1/namespaces/${ns}/nonexistents` }), 404, "NotFound");
    expectStatus(await c.request({ path: "/definitely/not/here" }), 404, "NotFound");
    expectStatus(await c.request({ method: "PUT", path: cms, body: cm("x"), headers: json }), 405, "MethodNotAllowed");
    const bad = rawClient(writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, "bad-token.kubeconfig"), "x", "not-a-token"));
    const anon = rawClient(server.kubeconfig, { anonymous: true });
    try {
      expectStatus(await bad.request({ path: cms }), 401, "Unauthorized", "unknown bearer token");
      // Without credentials a request is system:anonymous (kube-apiserver's --anonymous-auth default), refused by RBAC.
      expectStatus(await anon.request({ path: cms }), 403, "Forbidden", "no credentials");
    } finally {
      bad.close();
      anon.close();
    }
  });

  void it("bad delete bodies and failed preconditions are 4xx and delete nothing", async () => {
    const del = (body: string) => c.request({ method: "DELETE", path: `${cms}/target`, body, headers: json });
    expectStatus(await del("{nope"), 400, "BadRequest");
    expectStatus(await del(JSON.stringify({ preconditions: { uid: "00000000-0000-0000-0000-000000000000" } })), 409, "Conflict");
    expectStatus(await del(JSON.stringify({ preconditions: { resourceVersion: "1" } })), 409, "Conflict");
    expectClientError(await del(JSON.stringify({ propagationPolicy: "Sideways" })), "unknown propagationPolicy");
    expectClientError(await del(JSON.stringify({ dryRun: ["Maybe"] })), "bad dryRun in DeleteOptions");
    assert.equal((await c.request({ path: `${cms}/target` })).status, 200, "target must survive");
  });
});

function expectCreated(res: RawResponse): void {
  assert.equal(res.status, 201, `expected 201 Created: ${res.status} ${res.body.slice(0, 400)}`);
}
