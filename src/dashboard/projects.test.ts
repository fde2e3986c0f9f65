import assert from "node:assert/strict";
import { test } from "node:test";
import type { Project } from "../apis/gardencore/v1beta1/types.ts";
import type { Client } from "../client/client.ts";
import { MAX_SCANNED, PAGE, isMemberOf, memberProjects } from "./projects.ts";

const project = (name: string, members: unknown[], phase = "Ready"): Project => ({ metadata: { name }, spec: { namespace: `garden-${name}`, members }, status: { phase } }) as unknown as Project;

/** A garden of `n` projects served in pages; counts the list calls. */
function garden(n: number, member: (i: number) => boolean) {
  const all = Array.from({ length: n }, (_, i) => project(`p${i}`, member(i) ? [{ kind: "User", name: "alice" }] : [{ kind: "User", name: "bob" }]));
  const calls: { limit?: number; continue?: string }[] = [];
  const client = {
    list: (_type: unknown, o: { limit?: number; continue?: string }) => {
      calls.push(o);
      const from = Number(o.continue ?? 0);
      const to = from + (o.limit ?? n);
      return Promise.resolve({ items: all.slice(from, to), metadata: to < n ? { continue: String(to) } : {} });
    },
  } as unknown as Client;
  return { client, calls };
}

test("a member is named by user, by one of her groups, or as the ServiceAccount she is; nothing else counts", () => {
  const alice = { username: "alice", groups: ["team", "system:authenticated"] };
  assert.ok(isMemberOf(project("a", [{ kind: "User", name: "alice" }]), alice));
  assert.ok(isMemberOf(project("a", [{ kind: "Group", name: "team" }]), alice));
  assert.ok(!isMemberOf(project("a", [{ kind: "User", name: "team" }, { kind: "Group", name: "alice" }, { kind: "ServiceAccount", name: "alice" }]), alice));
  assert.ok(isMemberOf(project("a", [{ kind: "ServiceAccount", namespace: "garden-a", name: "robot" }]), { username: "system:serviceaccount:garden-a:robot", groups: [] }));
  assert.ok(!isMemberOf(project("a", [{ kind: "ServiceAccount", namespace: "garden-b", name: "robot" }]), { username: "system:serviceaccount:garden-a:robot", groups: [] }));
  assert.ok(!isMemberOf(project("a", []), alice));
});

test("pending projects are left out; pages are followed", async () => {
  const g = garden(PAGE * 2 + 3, (i) => i % 2 === 0);
  const { items, truncated } = await memberProjects(g.client, { username: "alice", groups: [] }, 10_000);
  assert.equal(items.length, PAGE + 2);
  assert.equal(truncated, false);
  assert.equal(g.calls.length, 3);
  const pending = { list: () => Promise.resolve({ items: [project("x", [{ kind: "User", name: "alice" }], "Pending"), { ...project("y", [{ kind: "User", name: "alice" }]), status: {} }], metadata: {} }) } as unknown as Client;
  assert.deepEqual((await memberProjects(pending, { username: "alice", groups: [] }, 10)).items.map((p) => p.metadata.name), [], "Pending and no phase yet (the project controller has not looked at it) are left out");
});

test("bounded: at most MAX_SCANNED projects are read and at most maxItems answered, with truncated set", async () => {
  const big = garden(MAX_SCANNED + PAGE * 4, () => false);
  const r = await memberProjects(big.client, { username: "alice", groups: [] }, 500);
  assert.deepEqual([r.items.length, r.truncated, big.calls.length], [0, true, MAX_SCANNED / PAGE]);
  const many = garden(PAGE * 4, () => true);
  const m = await memberProjects(many.client, { username: "alice", groups: [] }, 600);
  assert.deepEqual([m.items.length, m.truncated], [600, true]);
  assert.equal(many.calls.length, 2, "stops reading once it has more than it may answer");
});
