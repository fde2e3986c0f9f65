import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdmissionRequest } from "../../apis/admission/v1/types.ts";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import type { Client } from "../../client/client.ts";
import { FakeClock } from "../../utils/clock.ts";
import { Validator } from "./handlers.ts";

const terminal = (host: Terminal["spec"]["host"]["credentials"], target: Terminal["spec"]["target"]["credentials"]): Terminal => ({
  metadata: { name: "t", namespace: "garden-p", annotations: { "gardener.cloud/created-by": "alice", "dashboard.gardener.cloud/last-heartbeat-at": "2026-01-01T23:59:00Z" } },
  spec: {
    identifier: "42",
    host: { credentials: host, namespace: "term-42", pod: { container: { image: "busybox" } } },
    target: { credentials: target, namespace: "term-42", kubeconfigContextNamespace: "default" },
  },
}) as Terminal;

function validator(deny: (attrs: { name?: string }) => boolean) {
  const reviews: { name?: string; subresource?: string }[] = [];
  const garden = {
    create: async (_type: unknown, sar: { spec: { resourceAttributes: { name?: string; subresource?: string } } }) => {
      reviews.push(sar.spec.resourceAttributes);
      return { status: { allowed: !deny(sar.spec.resourceAttributes) } };
    },
  } as unknown as Client;
  const v = new Validator(garden, new FakeClock(Date.UTC(2026, 0, 2)), { honourServiceAccountRefHostCluster: true, honourServiceAccountRefTargetCluster: true, honourProjectMemberships: true }, () => Promise.resolve([]));
  return { v, reviews };
}
const request = (t: Terminal): AdmissionRequest => ({ uid: "u", operation: "UPDATE", object: t, oldObject: t, userInfo: { username: "alice" }, namespace: "garden-p", name: "t" }) as unknown as AdmissionRequest;

test("host and target naming the same credential are reviewed once per request; different ones each, target first", async () => {
  const s = { shootRef: { namespace: "garden-p", name: "s" } };
  const same = validator(() => false);
  assert.equal((await same.v.validate(request(terminal(s, s)))).allowed, true);
  assert.deepEqual(same.reviews.map((r) => r.name), ["s"]);

  const other = validator((a) => a.name === "h");
  const answer = await other.v.validate(request(terminal({ shootRef: { namespace: "garden-p", name: "h" } }, s)));
  assert.deepEqual(other.reviews.map((r) => r.name), ["s", "h"]);
  assert.equal(answer.allowed, false);
  assert.match(answer.status?.message ?? "", /spec\.host\.credentials: Forbidden: alice is not allowed to read host credential/);
});
