import { test } from "node:test";
import assert from "node:assert/strict";
import { KUBELET_BACKOFF, nextRestart } from "./backoff.ts";
import { commandLine, parseReference, profileFor } from "./profiles.ts";

test("back-off: immediate, then 10 s doubling to 5 min, reset after a 10 min run", () => {
  let b = 0;
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    const n = nextRestart(KUBELET_BACKOFF, b, 1000, 0);
    waits.push(n.at / 1000);
    b = n.backoffMs;
  }
  assert.deepEqual(waits, [0, 10, 20, 40, 80, 160, 300, 300]);
  assert.deepEqual(nextRestart(KUBELET_BACKOFF, 300_000, 600_000, 5), { at: 5, backoffMs: 10_000 });
});

test("images: Docker Hub normalisation, repositories match any tag, regex profiles, unknown images", () => {
  assert.deepEqual(parseReference("busybox"), { repository: "docker.io/library/busybox" });
  assert.deepEqual(parseReference("docker.io/library/busybox:1.36@sha256:ab"), { repository: "docker.io/library/busybox", tag: "1.36", digest: "sha256:ab" });
  assert.deepEqual(parseReference("localhost:5000/x/y:1"), { repository: "localhost:5000/x/y", tag: "1" });
  assert.equal(profileFor("busybox:1.36")?.name, "shell");
  assert.equal(profileFor("docker.io/library/alpine")?.name, "shell");
  assert.equal(profileFor("europe-docker.pkg.dev/gardener-project/releases/gardener/ops-toolbelt:latest")?.name, "ops-toolbelt");
  assert.equal(profileFor("quay.io/busybox"), undefined, "another registry's busybox is not Docker Hub's");
  assert.equal(profileFor("nginx"), undefined);
});

test("command and args override the profile's as Kubernetes overrides an image's", () => {
  const p = { name: "p", images: [], command: ["/bin/sh"], args: ["-l"] };
  assert.deepEqual(commandLine(p, undefined, undefined), ["/bin/sh", "-l"]);
  assert.deepEqual(commandLine(p, undefined, ["-c", "x"]), ["/bin/sh", "-c", "x"]);
  assert.deepEqual(commandLine(p, ["sleep"], undefined), ["sleep"]);
  assert.deepEqual(commandLine(p, ["sleep"], ["1"]), ["sleep", "1"]);
  assert.deepEqual(commandLine(p, undefined, []), ["/bin/sh", "-l"], "empty args are the image's");
});

test("the built-in profiles have no entrypoint, as their images: `kubectl run --image=busybox -- sh -c ...` runs sh", () => {
  const shell = profileFor("busybox")!;
  assert.deepEqual(commandLine(shell, undefined, ["sh", "-c", "echo hi"]), ["sh", "-c", "echo hi"]);
  assert.deepEqual(commandLine(shell, undefined, undefined), ["/bin/sh"]);
  assert.deepEqual(commandLine(profileFor("ops-toolbelt:latest")!, undefined, undefined), ["/bin/bash"]);
});
