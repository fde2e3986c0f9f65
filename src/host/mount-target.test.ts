import assert from "node:assert/strict";
import { test } from "node:test";
import { type LinkReader, resolveInRoot } from "./mount-target.ts";

const links = (m: Record<string, string>): LinkReader => ({ readLink: async (p) => m[p] });

test("a mount target through the node's links stays inside the container's root", async () => {
  const node = links({ "/var/run": "/run", "/etc/alt": "../../../../etc/real", "/up": "..", "/loop": "/loop", "/rel": "sub/dir" });
  assert.equal(await resolveInRoot("/var/run/secrets/kubernetes.io/serviceaccount", node), "/run/secrets/kubernetes.io/serviceaccount");
  assert.equal(await resolveInRoot("/etc/alt/x", node), "/etc/real/x", "relative links never climb above the root");
  assert.equal(await resolveInRoot("/up/up/../etc", node), "/etc");
  assert.equal(await resolveInRoot("/rel/x", node), "/sub/dir/x");
  assert.equal(await resolveInRoot("/plain/./a//b", node), "/plain/a/b");
  await assert.rejects(resolveInRoot("/loop/x", node), /too many levels of symbolic links/);
});
