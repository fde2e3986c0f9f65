// Real kubectl 1.33 against a cluster with the scheduler: `get pods -o wide` shows the node,
// `describe pod` the Scheduled event from default-scheduler, and an unschedulable pod's
// FailedScheduling event with upstream's message.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { kubectlFor, skipUnlessKubectl, type Kubectl } from "../../support/kubectl.ts";
import { parseTable, rowWhere } from "../../support/table.ts";
import { type Env, addNode, boundNode, eventually, namespace, startEnv } from "./support.ts";

void describe("kubectl with the scheduler", { timeout: 120_000, skip: skipUnlessKubectl("1.33") }, () => {
  let env: Env;
  let k: Kubectl;
  before(async () => {
    env = await startEnv();
    k = kubectlFor(env.server.adminKubeconfigPath, "1.33");
    await namespace(env, "kc");
    await addNode(env, "kc-node", { labels: { disk: "hdd" } });
    await env.startScheduler();
  });
  after(async () => {
    await env?.stop();
  });

  void it("get pods -o wide shows the node; describe pod shows the Scheduled event", async () => {
    await k.ok(["run", "web", "--image=nginx", "-n", "kc"]);
    assert.equal(await boundNode(env, "kc", "web"), "kc-node");
    const table = parseTable(await k.ok(["get", "pods", "-o", "wide", "-n", "kc"]));
    assert.equal(rowWhere(table, "NAME", "web")["NODE"], "kc-node");
    const described = await eventually("Scheduled in describe", async () => {
      const out = await k.ok(["describe", "pod", "web", "-n", "kc"]);
      return /Scheduled/.test(out) ? out : undefined;
    });
    assert.match(described, /^Node:\s+kc-node\/?/m);
    assert.match(described, /Normal\s+Scheduled\s+.+?\s+default-scheduler\s+Successfully assigned kc\/web to kc-node/);
  });

  void it("describe pod shows FailedScheduling with the FitError message", async () => {
    await k.ok(["run", "picky", "--image=nginx", "-n", "kc", "--overrides", JSON.stringify({ spec: { nodeSelector: { disk: "ssd" } } })]);
    const described = await eventually("FailedScheduling in describe", async () => {
      const out = await k.ok(["describe", "pod", "picky", "-n", "kc"]);
      return /FailedScheduling/.test(out) ? out : undefined;
    });
    assert.match(described, /Warning\s+FailedScheduling\s+.+?\s+default-scheduler\s+0\/1 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector\./);
    assert.match(described, /PodScheduled\s+False/);
    // Its own status write is no reason to try again: one attempt, one event (the clock stands still).
    assert.doesNotMatch(described, /FailedScheduling\s+\S+ \(x\d+/);
  });
});
