import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { AuthorizationAttributes, Authorizer } from "../authorization/types.ts";
import { hasImpersonationHeaders, impersonate, removeImpersonationHeaders } from "./impersonation.ts";

const admin = { username: "admin", groups: ["system:authenticated"] };

/** Allows what `allowed` lists as "resource[/sub]:name[@ns]"; records every check. */
function authorizer(allowed: string[]): Authorizer & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize(a) {
      seen.push(a);
      const key = `${a.resource}${a.subresource ? `/${a.subresource}` : ""}:${a.name}${a.namespace ? `@${a.namespace}` : ""}`;
      return Promise.resolve(allowed.includes(key) ? { decision: "allow", reason: "" } : { decision: "noOpinion", reason: "" });
    },
  };
}

describe("impersonate", () => {
  it("returns the user unchanged without impersonation headers", async () => {
    const a = authorizer([]);
    assert.equal(await impersonate({ accept: "x" }, admin, a), admin);
    assert.equal(a.seen.length, 0);
  });

  it("impersonates a user with groups (repeated and comma-joined), extra and uid, checking each piece", async () => {
    const a = authorizer(["users:jane", "groups:dev", "groups:ops", "groups:qa", "userextras/scopes:view", "uids:1234"]);
    const headers = {
      "impersonate-user": "jane",
      "impersonate-group": ["dev", "ops, qa"],
      "impersonate-extra-scopes": "view",
      "impersonate-uid": "1234",
      accept: "application/json",
    };
    const u = await impersonate(headers, admin, a);
    assert.deepEqual(u, { username: "jane", uid: "1234", groups: ["dev", "ops", "qa", "system:authenticated"], extra: { scopes: ["view"] } });
    assert.ok(a.seen.every((s) => s.verb === "impersonate" && s.user === admin));
    assert.deepEqual(
      a.seen.map((s) => [s.apiGroup, s.resource]),
      [["", "users"], ["", "groups"], ["", "groups"], ["", "groups"], ["authentication.k8s.io", "userextras"], ["authentication.k8s.io", "uids"]],
    );
    assert.equal(hasImpersonationHeaders(headers), true);
    removeImpersonationHeaders(headers);
    assert.deepEqual(headers, { accept: "application/json" });
  });

  it("impersonates a service account with its groups, checked as serviceaccounts in its namespace", async () => {
    const a = authorizer(["serviceaccounts:robot@garden-dev"]);
    const u = await impersonate({ "Impersonate-User": "system:serviceaccount:garden-dev:robot" }, admin, a);
    assert.deepEqual(u.groups, ["system:serviceaccounts", "system:serviceaccounts:garden-dev", "system:authenticated"]);
    assert.equal(a.seen[0]?.namespace, "garden-dev");
  });

  it("keeps system:unauthenticated when given and adds it for system:anonymous", async () => {
    const a = authorizer(["users:x", "groups:system:unauthenticated", "users:system:anonymous"]);
    const u = await impersonate({ "impersonate-user": "x", "impersonate-group": "system:unauthenticated" }, admin, a);
    assert.deepEqual(u.groups, ["system:unauthenticated"]);
    const anon = await impersonate({ "impersonate-user": "system:anonymous" }, admin, a);
    assert.deepEqual(anon.groups, ["system:unauthenticated"]);
  });

  it("denies with kube's message when a piece is not allowed", async () => {
    await assert.rejects(impersonate({ "impersonate-user": "x" }, { username: "y", groups: [] }, authorizer([])), {
      code: 403,
      reason: "Forbidden",
      message: 'users "x" is forbidden: User "y" cannot impersonate resource "users" in API group "" at the cluster scope',
    });
    await assert.rejects(impersonate({ "impersonate-user": "jane", "impersonate-group": "admins" }, admin, authorizer(["users:jane"])), {
      code: 403,
      message: 'groups "admins" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope',
    });
    await assert.rejects(impersonate({ "impersonate-user": "system:serviceaccount:ns1:sa" }, admin, authorizer([])), {
      message: 'serviceaccounts "sa" is forbidden: User "admin" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
    });
  });

  it("rejects groups without a user as kube does (500)", async () => {
    await assert.rejects(impersonate({ "impersonate-group": "dev" }, admin, authorizer(["groups:dev"])), { code: 400, message: /without impersonating a user/ });
  });
});
