import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../../apis/core/v1/pod.ts";
import { podDefinition } from "../../registry/core/pod/definition.ts";
import { rejects } from "../../registry/generic/testing/assert.ts";
import { newTestServer } from "../../registry/generic/testing/server.ts";
import { NamespaceLifecycle } from "../namespace-lifecycle.ts";
import { PodSecurityAdmission, policyOf } from "./admission.ts";
import { describe as text, evaluate } from "./checks.ts";

const pod = (spec: Record<string, unknown>): Pod => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, spec: spec as Pod["spec"] });
const PODS = { group: "", resource: "pods" };
const NS = { group: "", resource: "namespaces" };

describe("Pod Security Standards", () => {
  it("baseline refuses privileged, host namespaces, hostPath and host ports with upstream wording", () => {
    const p = pod({
      hostPID: true,
      hostNetwork: true,
      containers: [{ name: "c", securityContext: { privileged: true, capabilities: { add: ["NET_ADMIN", "CHOWN"] } }, ports: [{ containerPort: 80, hostPort: 80 }] }, { name: "d", securityContext: { privileged: true } }],
      volumes: [{ name: "h", hostPath: { path: "/" } }],
    });
    assert.equal(
      text(evaluate("baseline", p)),
      'host namespaces (hostNetwork=true, hostPID=true), privileged (containers "c", "d" must not set securityContext.privileged=true), non-default capabilities (container "c" must not include "NET_ADMIN" in securityContext.capabilities.add), hostPath volumes (volume "h"), hostPort (container "c" uses hostPort 80)',
    );
    assert.deepEqual(evaluate("privileged", p), []);
  });

  it("restricted also wants non-root, no escalation, dropped capabilities and a seccomp profile", () => {
    const plain = pod({ containers: [{ name: "c" }] });
    assert.equal(evaluate("baseline", plain).length, 0);
    assert.equal(
      text(evaluate("restricted", plain)),
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    const hardened = pod({
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{ name: "c", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
    });
    assert.deepEqual(evaluate("restricted", hardened), []);
  });

  it("reads levels and versions from namespace labels; unknown levels count as restricted", () => {
    assert.equal(policyOf({}, "enforce"), undefined);
    assert.deepEqual(policyOf({ "pod-security.kubernetes.io/enforce": "baseline" }, "enforce"), { level: "baseline", version: "latest" });
    assert.deepEqual(policyOf({ "pod-security.kubernetes.io/warn": "nonsense", "pod-security.kubernetes.io/warn-version": "v1.29" }, "warn"), { level: "restricted", version: "v1.29" });
  });

  it("enforces from the stored namespace and warns through the request's warnings", async () => {
    const s = newTestServer([podDefinition], [new NamespaceLifecycle(), new PodSecurityAdmission()]);
    const labels = { "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted" };
    await s.client.create(NS, { metadata: { name: "secure", labels } });
    const store = s.storeFor(s.registry.get("", "v1", "pods")!);
    const ctx = { user: { username: "u", groups: [] }, namespace: "secure", clock: s.clock, dryRun: false, warnings: [] as string[] };
    await rejects(
      store.create(ctx, { ...pod({ containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] }), metadata: { name: "x" } }),
      403,
      "Forbidden",
      'pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    );
    await store.create(ctx, { ...pod({ containers: [{ name: "c", image: "i" }] }), metadata: { name: "ok" } });
    assert.equal(ctx.warnings.length, 1);
    assert.match(ctx.warnings[0]!, /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    await s.client.create(NS, { metadata: { name: "open" } });
    await s.client.create(PODS, { ...pod({ hostPID: true, containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] }), metadata: { name: "p", namespace: "open" } });
  });
});
