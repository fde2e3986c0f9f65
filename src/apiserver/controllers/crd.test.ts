import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomResourceDefinition } from "../../apis/apiextensions/v1/types.ts";
import { kindSchema } from "../schema/objectmeta.ts";
import { rejects } from "../registry/generic/testing/assert.ts";
import { gadgetDefinition } from "../registry/generic/testing/fixtures.ts";
import { untilAsync } from "../registry/generic/testing/sink.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import type { ResourceDefinition } from "../registry/types.ts";
import { definitionsFromCRD as realDefinitionsFromCRD } from "../registry/apiextensions/customresource.ts";
import { crdDefinition as realCRDDefinition } from "../registry/apiextensions/customresourcedefinition/definition.ts";
import { CRD_CLEANUP_FINALIZER, CRDController, CRDS } from "./crd.ts";
import { NAMESPACES } from "./namespace-deletion.ts";

/** A stand-in for registry/apiextensions/customresource.ts: one definition per served version. */
function definitionsFromCRD(crd: CustomResourceDefinition): ResourceDefinition[] {
  const { group, names, scope } = crd.spec;
  return crd.spec.versions
    .filter((v) => v.served)
    .map((v) => ({
      group,
      version: v.name,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural,
      singular: names.singular ?? names.kind.toLowerCase(),
      namespaced: scope === "Namespaced",
      schema: kindSchema({ properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }),
      hasStatus: Boolean(v.subresources?.status),
      strategy: { allowUnconditionalUpdate: false },
      strategicMergePatch: false,
      crdName: crd.metadata.name!,
    }));
}

/** The CRD kind itself, as the store sees it (cluster-scoped, with status). */
function crdDefinition(): ResourceDefinition {
  return {
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    listKind: "CustomResourceDefinitionList",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    namespaced: false,
    hasStatus: true,
    strategicMergePatch: false,
    schema: kindSchema({
      properties: {
        spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    }),
    strategy: {},
  };
}

function crd(plural: string, group = "demo.io"): CustomResourceDefinition {
  const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, kind },
      scope: "Namespaced",
      versions: [
        { name: "v1", served: true, storage: true, subresources: { status: {} } },
        { name: "v1beta1", served: true, storage: false },
      ],
    },
  };
}

async function setup() {
  const s = newTestServer([crdDefinition(), gadgetDefinition({ group: "demo.io", plural: "gizmos", kind: "Gizmo" })]);
  const errors: unknown[] = [];
  const c = new CRDController({ client: s.client, registry: s.registry, clock: s.clock, definitionsFromCRD, recheckMs: 2000, onError: (e) => errors.push(e) });
  await s.client.create(NAMESPACES, { metadata: { name: "ns1" } });
  return { s, c, errors };
}

const getCRD = async (s: ReturnType<typeof newTestServer>, name: string) => (await s.client.get(CRDS, undefined, name)) as CustomResourceDefinition | undefined;

describe("CRDController", () => {
  it("serves a new CRD, adds the cleanup finalizer and reports Established", async () => {
    const { s, c, errors } = await setup();
    await c.start();
    await s.client.create(CRDS, crd("widgets"));
    await untilAsync(async () => Boolean((await getCRD(s, "widgets.demo.io"))?.status?.conditions?.length), "status");
    await c.idle();
    const got = (await getCRD(s, "widgets.demo.io"))!;
    assert.deepEqual(got.metadata.finalizers, [CRD_CLEANUP_FINALIZER]);
    const conds = Object.fromEntries((got.status?.conditions ?? []).map((x) => [x.type, `${x.status}/${x.reason}`]));
    assert.deepEqual(conds, { NamesAccepted: "True/NoConflicts", Established: "True/InitialNamesAccepted" });
    assert.deepEqual(got.status?.acceptedNames, { plural: "widgets", kind: "Widget", singular: "widget", listKind: "WidgetList" });
    assert.deepEqual(got.status?.storedVersions, ["v1"]);
    assert.ok(s.registry.get("demo.io", "v1", "widgets"));
    assert.ok(s.registry.get("demo.io", "v1beta1", "widgets"));
    const w = await s.client.create({ group: "demo.io", resource: "widgets" }, { metadata: { name: "w1", namespace: "ns1" }, spec: { a: 1 } });
    assert.equal(w.apiVersion, "demo.io/v1");
    // A second pass changes nothing (no status churn).
    const rv = got.metadata.resourceVersion;
    const registryVersion = s.registry.version;
    await c.sync("widgets.demo.io");
    assert.equal((await getCRD(s, "widgets.demo.io"))?.metadata.resourceVersion, rv);
    assert.equal(s.registry.version, registryVersion, "unchanged definitions are not re-registered");
    assert.deepEqual(errors, []);
    c.stop();
  });

  it("establishes CRDs that existed before it started, and follows changes of served versions", async () => {
    const { s, c } = await setup();
    await s.client.create(CRDS, crd("widgets"));
    await c.start();
    await c.idle();
    assert.ok(s.registry.get("demo.io", "v1beta1", "widgets"));
    const cur = (await getCRD(s, "widgets.demo.io"))!;
    cur.spec.versions = cur.spec.versions.filter((v) => v.name === "v1");
    await s.client.update(CRDS, cur);
    await untilAsync(async () => !s.registry.get("demo.io", "v1beta1", "widgets"), "v1beta1 removed");
    assert.ok(s.registry.get("demo.io", "v1", "widgets"));
    c.stop();
  });

  it("does not accept names that are already served", async () => {
    const { s, c } = await setup();
    await c.start();
    await s.client.create(CRDS, crd("gizmos"));
    await untilAsync(async () => Boolean((await getCRD(s, "gizmos.demo.io"))?.status?.conditions?.length), "status");
    await c.idle();
    const got = (await getCRD(s, "gizmos.demo.io"))!;
    const accepted = got.status?.conditions?.find((x) => x.type === "NamesAccepted");
    assert.equal(accepted?.status, "False");
    assert.match(accepted?.message ?? "", /"gizmos" is already in use/);
    assert.equal(got.status?.conditions?.find((x) => x.type === "Established")?.status, "False");
    assert.equal(s.registry.get("demo.io", "v1", "gizmos")?.crdName, undefined, "the built-in stays");
    assert.equal(s.registry.get("demo.io", "v1beta1", "gizmos"), undefined);
    c.stop();
  });

  it("on deletion removes all custom objects, then the definitions, then the finalizer", async () => {
    const { s, c, errors } = await setup();
    await c.start();
    await s.client.create(CRDS, crd("widgets"));
    await untilAsync(async () => Boolean((await getCRD(s, "widgets.demo.io"))?.status?.conditions?.length), "established");
    await c.idle();
    const WIDGETS = { group: "demo.io", resource: "widgets" };
    await s.client.create(NAMESPACES, { metadata: { name: "ns2" } });
    await s.client.create(WIDGETS, { metadata: { name: "a", namespace: "ns1" } });
    await s.client.create(WIDGETS, { metadata: { name: "b", namespace: "ns2", finalizers: ["demo.io/hold"] } });

    await s.client.delete(CRDS, undefined, "widgets.demo.io");
    await untilAsync(async () => (await s.client.get(WIDGETS, "ns1", "a")) === undefined, "a deleted");
    await c.idle();
    const terminating = (await getCRD(s, "widgets.demo.io"))!;
    assert.ok(terminating.metadata.deletionTimestamp);
    assert.equal(terminating.status?.conditions?.find((x) => x.type === "Terminating")?.status, "True");
    assert.ok(s.registry.get("demo.io", "v1", "widgets"), "still served while objects remain");

    await s.client.patch(WIDGETS, "ns2", "b", "merge", { metadata: { finalizers: null } });
    s.clock.step(2000);
    await c.idle();
    assert.equal(await getCRD(s, "widgets.demo.io"), undefined, "the CRD is gone");
    assert.equal(s.registry.get("demo.io", "v1", "widgets"), undefined);
    assert.equal(s.registry.get("demo.io", "v1beta1", "widgets"), undefined);
    await rejects(s.client.list(WIDGETS, undefined), 404, "NotFound");
    assert.deepEqual(errors, []);
    c.stop();
  });

  it("serves a real CRD end to end (schema validation, status subresource, strict fields)", async () => {
    const s = newTestServer([realCRDDefinition]);
    await s.client.create(NAMESPACES, { metadata: { name: "ns1" } });
    const c = new CRDController({ client: s.client, registry: s.registry, clock: s.clock, definitionsFromCRD: realDefinitionsFromCRD });
    await c.start();
    const body: CustomResourceDefinition = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "bastions.ops.example.com" },
      spec: {
        group: "ops.example.com",
        names: { plural: "bastions", kind: "Bastion" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1alpha1",
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { sshPublicKey: { type: "string" }, ttl: { type: "integer", default: 3600 } }, required: ["sshPublicKey"] },
                  status: { type: "object", properties: { ready: { type: "boolean" } } },
                },
              },
            },
          },
        ],
      },
    };
    await s.client.create(CRDS, body);
    await untilAsync(async () => Boolean(s.registry.get("ops.example.com", "v1alpha1", "bastions")), "registered");
    await c.idle();
    const established = (await getCRD(s, "bastions.ops.example.com"))!;
    assert.equal(established.status?.conditions?.find((x) => x.type === "Established")?.status, "True");
    const BASTIONS = { group: "ops.example.com", resource: "bastions" };
    const store = s.storeFor(s.registry.get("ops.example.com", "v1alpha1", "bastions")!);
    const ctx = { user: { username: "u", groups: [] }, clock: s.clock, dryRun: false, namespace: "ns1" };
    await rejects(store.create(ctx, { metadata: { name: "b0" }, spec: {} }), 422, "Invalid", /spec\.sshPublicKey: Required value/);
    await rejects(store.create(ctx, { metadata: { name: "b0" }, spec: { sshPublicKey: "k", x: 1 } }, { fieldValidation: "Strict" }), 400, "BadRequest", 'strict decoding error: unknown field "spec.x"');
    const b = (await store.create(ctx, { metadata: { name: "b1" }, spec: { sshPublicKey: "k" }, status: { ready: true } })).object;
    assert.deepEqual(b.spec, { sshPublicKey: "k", ttl: 3600 });
    assert.equal(b.status, undefined);
    await rejects(store.update(ctx, "b1", { ...b, metadata: { ...b.metadata, resourceVersion: "" } }), 422, "Invalid", /must be specified for an update/);
    await rejects(store.patch(ctx, "b1", "strategic", { spec: { ttl: 1 } }), 415, "UnsupportedMediaType");
    const st = await s.client.patch(BASTIONS, "ns1", "b1", "merge", { status: { ready: true } }, "status");
    assert.deepEqual(st.status, { ready: true });
    c.stop();
  });
});
