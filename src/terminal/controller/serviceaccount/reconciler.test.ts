// The ServiceAccount controller's membership cleanup with a stand-in garden client: it removes exactly
// the members the terminal controller counts as the ServiceAccount (isServiceAccountMember) and, like
// it, re-reads the Project and tries again when its write meets a conflict.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { Project, ProjectMember } from "../../../apis/gardencore/v1beta1/types.ts";
import { StatusError } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import type { ReconcileContext } from "../../../controllerruntime/reconcile.ts";
import { FINALIZER_TERMINAL_REFERENCE, LABEL_TERMINAL_REFERENCE, ServiceAccountReconciler } from "./reconciler.ts";

const NS = "garden-p";
const SA = "dashboard-webterminal";

/** A garden of one labelled, finalized ServiceAccount, no Terminals and Project p; `conflicts` writes of the Project fail with 409 first. */
function garden(members: ProjectMember[], conflicts = 0) {
  let project: Project = { metadata: { name: "p", resourceVersion: "1" }, spec: { namespace: NS, members } };
  const writes: unknown[] = [];
  const sa = { metadata: { name: SA, namespace: NS, resourceVersion: "5", labels: { [LABEL_TERMINAL_REFERENCE]: "true" }, finalizers: [FINALIZER_TERMINAL_REFERENCE] } };
  const fake = {
    get: (type: { kind: string }) => Promise.resolve(type.kind === "Project" ? structuredClone(project) : structuredClone(sa)),
    list: () => Promise.resolve({ items: [] }),
    listAll: () => Promise.resolve({ items: [structuredClone(project)] }),
    patch: (type: { kind: string }, _key: unknown, p: { body: { metadata: { resourceVersion?: string }; spec?: { members: ProjectMember[] } } }) => {
      writes.push({ kind: type.kind, body: p.body });
      if (type.kind !== "Project") return Promise.resolve(sa);
      if (conflicts-- > 0) {
        project = { ...project, metadata: { ...project.metadata, resourceVersion: String(Number(project.metadata.resourceVersion) + 1) } };
        return Promise.reject(new StatusError(409, "Conflict", "the object has been modified"));
      }
      if (p.body.metadata.resourceVersion !== project.metadata.resourceVersion) return Promise.reject(new StatusError(409, "Conflict", "stale resourceVersion"));
      project = { ...project, spec: { ...project.spec, members: p.body.spec?.members } };
      return Promise.resolve(project);
    },
  };
  return { client: fake as unknown as Client, project: () => project, writes };
}

const rc: ReconcileContext = { signal: new AbortController().signal, log: pino({ level: "silent" }), controller: "serviceaccount" };
const reconciler = (client: Client) => new ServiceAccountReconciler({ client, allowedServiceAccountNames: [], honourCleanupProjectMembership: true });

describe("the ServiceAccount controller's membership cleanup", () => {
  it("removes the ServiceAccount as kind ServiceAccount (core group) or as user name, not a ServiceAccount entry of another API group", async () => {
    const other: ProjectMember = { apiGroup: "rbac.authorization.k8s.io", kind: "ServiceAccount", name: SA, namespace: NS, role: "viewer" };
    const g = garden([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice", role: "admin" },
      { apiGroup: "", kind: "ServiceAccount", name: SA, namespace: NS, role: "admin", roles: ["serviceaccountmanager"] },
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: `system:serviceaccount:${NS}:${SA}`, role: "viewer" },
      other,
    ]);
    await reconciler(g.client).reconcile({ namespace: NS, name: SA }, rc);
    assert.deepEqual(g.project().spec?.members?.map((m) => `${m.apiGroup}/${m.kind}/${m.name}`), ["rbac.authorization.k8s.io/User/alice", `rbac.authorization.k8s.io/ServiceAccount/${SA}`]);
    assert.deepEqual(g.writes.map((w) => (w as { kind: string }).kind), ["Project", "ServiceAccount"], "the membership first, then the finalizer");
  });

  it("a conflicting write of the Project is read again and retried", async () => {
    const g = garden([{ apiGroup: "", kind: "ServiceAccount", name: SA, namespace: NS, role: "admin" }], 2);
    await reconciler(g.client).reconcile({ namespace: NS, name: SA }, rc);
    assert.deepEqual(g.project().spec?.members, []);
    assert.equal(g.writes.filter((w) => (w as { kind: string }).kind === "Project").length, 3);
  });
});
