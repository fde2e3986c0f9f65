import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import { validateCAData } from "./cadata.ts";
import { validateTerminal } from "./validation.ts";

const NOW = Date.UTC(2026, 0, 2);
const cfg = { honourServiceAccountRefHostCluster: true, honourServiceAccountRefTargetCluster: true, honourProjectMemberships: true };
const ok = (): Terminal => ({
  metadata: { name: "t", namespace: "garden-p", annotations: { "gardener.cloud/created-by": "alice", "dashboard.gardener.cloud/last-heartbeat-at": "2026-01-01T23:59:00Z" } },
  spec: {
    identifier: "42",
    host: { credentials: { shootRef: { namespace: "garden-p", name: "s" } }, namespace: "term-42", pod: { container: { image: "busybox" } } },
    target: { credentials: { serviceAccountRef: { namespace: "garden-p", name: "sa" } }, namespace: "term-42", kubeconfigContextNamespace: "default" },
  },
});
const check = (mut: (t: Terminal) => void, c = cfg, old?: Terminal, user = "alice") => {
  const t = ok();
  mut(t);
  return validateTerminal(t, old, user, NOW, c);
};

describe("terminal validation (docs/terminals.md#validating-webhook)", () => {
  it("passes a valid Terminal", () => assert.equal(check(() => undefined), undefined));

  it("refuses changed immutable fields and another user's heartbeat", () => {
    assert.match(check((t) => (t.spec.identifier = "43"), cfg, ok()) ?? "", /^spec: Invalid value: .*: field is immutable$/);
    assert.equal(check((t) => (t.metadata.annotations!["gardener.cloud/created-by"] = "eve"), cfg, ok()), 'metadata.annotations.gardener.cloud/created-by: Invalid value: "eve": field is immutable');
    const beat = (t: Terminal) => (t.metadata.annotations!["dashboard.gardener.cloud/last-heartbeat-at"] = "2026-01-01T23:59:30Z");
    assert.equal(check(beat, cfg, ok(), "bob"), "metadata.annotations.dashboard.gardener.cloud/last-heartbeat-at: Forbidden: bob is not allowed to change this field");
    assert.equal(check(beat, cfg, ok(), "alice"), undefined);
  });

  it("checks the heartbeat, namespaces and the pod", () => {
    const cases: [(t: Terminal) => void, string][] = [
      [(t) => (t.metadata.annotations!["dashboard.gardener.cloud/last-heartbeat-at"] = "yesterday"), 'metadata.annotations.dashboard.gardener.cloud/last-heartbeat-at: Invalid value: "yesterday": failed to parse time'],
      [(t) => (t.metadata.annotations!["dashboard.gardener.cloud/last-heartbeat-at"] = "2026-01-02T00:00:01Z"), "metadata.annotations.dashboard.gardener.cloud/last-heartbeat-at: Forbidden: time must not be in the future"],
      [(t) => delete t.spec.target.namespace, "spec.target.namespace: Required value: field is required"],
      [(t) => (t.spec.host.namespace = "Bad_NS"), 'spec.host.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
      [(t) => delete t.spec.host.pod.container, "spec.host.pod.container: Required value: field is required"],
      [(t) => (t.spec.host.pod.labels = { "a b": "c" }), 'spec.host.pod.labels: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', or \'my.name\', or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')'],
    ];
    for (const [mut, msg] of cases) assert.equal(check(mut), msg);
  });

  it("checks credentials as configured", () => {
    assert.equal(check((t) => (t.spec.target.credentials.shootRef = { namespace: "garden-p", name: "s" })), "spec.target.credentials: Forbidden: only one of 'shootRef' or 'serviceAccountRef' must be set");
    assert.equal(check(() => undefined, { ...cfg, honourServiceAccountRefTargetCluster: false }), "spec.target.credentials.serviceAccountRef: Forbidden: field is forbidden by configuration");
    assert.equal(check((t) => (t.spec.host.credentials = {}), { ...cfg, honourServiceAccountRefHostCluster: false }), "spec.host.credentials.shootRef: Required value: field is required");
    assert.equal(check((t) => (t.spec.host.credentials = {})), "spec.host.credentials: Required value: field requires either ShootRef or ServiceAccountRef to be set");
  });

  it("checks role bindings and project memberships with upstream's messages", () => {
    const rb = (bindingKind: string, kind: string, nameSuffix = "") => ({ nameSuffix, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name: "view" }, bindingKind }) as never;
    assert.equal(check((t) => (t.spec.target.authorization = { roleBindings: [rb("ClusterRoleBinding", "Role")] })), 'spec.target.authorization.roleBindings[0].roleRef.kind: Invalid value: "Role": ClusterRoleBinding can only reference a ClusterRole');
    assert.equal(check((t) => (t.spec.target.authorization = { roleBindings: [rb("RoleBinding", "Group")] })), 'spec.target.authorization.roleBindings[0].roleRef.kind: Invalid value: "Group": RoleBinding can only reference a Role or ClusterRole');
    assert.equal(check((t) => (t.spec.target.authorization = { roleBindings: [rb("RoleBinding", "Role"), rb("RoleBinding", "Role")] })), 'spec.target.authorization.roleBindings[1].nameSuffix: Invalid value: "": name must be unique');
    assert.equal(check((t) => ((t.spec.target.roleName = "admin"), (t.spec.target.bindingKind = ""))), 'spec.target.bindingKind: Invalid value: "": field should be either ClusterRoleBinding or RoleBinding');
    assert.equal(check((t) => (t.spec.target.authorization = { projectMemberships: [{ projectName: "p", roles: ["admin", "boss"] }] })), 'spec.target.authorization.projectMemberships[0].roles[1]: Unsupported value: "boss": supported values: "admin", "owner", "serviceaccountmanager", "uam", "viewer", "extension:*"');
    assert.equal(check((t) => (t.spec.target.authorization = { projectMemberships: [{ projectName: "p", roles: ["admin", "admin"] }] })), 'spec.target.authorization.projectMemberships[0].roles[1]: Duplicate value: "admin"');
    assert.equal(check((t) => (t.spec.target.authorization = { projectMemberships: [{ projectName: "p", roles: ["admin"] }] }), { ...cfg, honourProjectMemberships: false }), "spec.target.authorization.projectMemberships: Forbidden: field is forbidden by configuration");
  });

  it("checks the API server reference, URL and CA bundle", () => {
    assert.equal(check((t) => (t.spec.target.apiServer = { server: "http://x" })), 'spec.target.apiServer.server: Invalid value: "http://x": URL scheme must be https');
    assert.equal(check((t) => (t.spec.target.apiServer = { serviceRef: { name: "1bad" } })), 'spec.target.apiServer.serviceRef.name: Invalid value: "1bad": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\', or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')');
    assert.equal(check((t) => (t.spec.target.apiServer = { caData: Buffer.from("junk").toString("base64") })), 'spec.target.apiServer.caData: Invalid value: "<redacted>": CA bundle must contain at least one PEM-encoded certificate');
  });

  it("caData: certificates only, each parsing, nothing after them", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const keyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    assert.equal(validateCAData(Buffer.from(keyPem).toString("base64")), 'unexpected PEM block type "PRIVATE KEY" (expected CERTIFICATE)');
    assert.match(validateCAData(Buffer.from("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").toString("base64")) ?? "", /^cannot parse X\.509 certificate: /);
  });
});
