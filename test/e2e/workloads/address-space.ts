// A Bastion beyond the landscape's address space, on the workloads landscape (whose public network is a /29,
// test/e2e/workloads/workloads.test.ts; its tests use no bastion): a /29 has room for two bastions (.1
// gateway; the host, the shoot's router and the seed's router hold three more). The third fails at once with
// its reason on the garden Bastion (BastionReady=False, code ERR_CONFIGURATION_PROBLEM, the network named),
// and `gardenctl ssh` stops waiting and prints it instead of running into --wait-timeout.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bastion } from "../../../src/apis/operations/v1alpha1/types.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { REPO } from "../../../src/landscape/components.ts";
import { PROJECT_NAMESPACE, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { eventually } from "../../support/http.ts";
import { gardenBastion } from "../bastion-chaos/support.ts";
import type { Landscape } from "../support/landscape.ts";

/** The landscape's public network for this check. */
export const PUBLIC_CIDR = "198.18.0.0/29";

const ready = (b: Bastion | undefined) => b?.status?.conditions?.find((c) => c.type === "BastionReady");

export async function checkBeyondAddressSpace(l: Landscape, progress: (line: string) => void): Promise<void> {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", join(l.dir, "id_user")]);
  const userPub = readFileSync(join(l.dir, "id_user.pub"), "utf8").trim();
  const cidr = `${l.hostAddress}/32`;
  for (const name of ["fits-1", "fits-2"]) await l.member.create(Bastions, gardenBastion(name, userPub, cidr));
  await eventually("two bastions Ready", async () => {
    for (const name of ["fits-1", "fits-2"]) assert.equal(ready(await l.member.get(Bastions, { namespace: PROJECT_NAMESPACE, name }))?.status, "True", name);
    return true;
  }, 120_000, 250);

  await l.member.create(Bastions, gardenBastion("too-many", userPub, cidr));
  const cond = await eventually("BastionReady=False with ERR_CONFIGURATION_PROBLEM", async () => {
    const c = ready(await l.member.get(Bastions, { namespace: PROJECT_NAMESPACE, name: "too-many" }));
    assert.equal(c?.status, "False");
    assert.deepEqual(c?.codes, ["ERR_CONFIGURATION_PROBLEM"]);
    return c!;
  }, 60_000, 250);
  assert.equal(cond.reason, "FailedReconciling");
  assert.match(cond.message, new RegExp(`^Error while waiting for Bastion ${SHOOT_TECHNICAL_ID}/too-many to become ready: error during reconciliation: .*cannot create bastion machine: no free address in 198\\.18\\.0\\.0/29 \\(the public network\\)`));

  const start = performance.now();
  const run = await new Promise<{ code: number; out: string }>((resolve) => {
    const args = [join(REPO, "bin", "gardenctl.js"), "ssh", "--garden", "local", "--project", "local", "--shoot", "local", `${SHOOT_TECHNICAL_ID}-worker-w1`, "--wait-timeout", "5m", "--", "true"];
    execFile(process.execPath, args, { env: { ...process.env, GCTL_HOME: l.layout.path("gardenctl") }, timeout: 120_000, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
  const ms = performance.now() - start;
  assert.equal(run.code, 1, run.out);
  assert.match(run.out, /the bastion cannot become ready \(ERR_CONFIGURATION_PROBLEM\): .*no free address in 198\.18\.0\.0\/29 \(the public network\)/);
  assert.ok(ms < 60_000, `gardenctl gave up after ${ms.toFixed(0)} ms, not at --wait-timeout`);
  progress(`gardenctl ssh failed after ${ms.toFixed(0)} ms`);
  // gardenctl deletes its Bastion on the way out; the two that fit stay Ready.
  await eventually("gardenctl's bastion gone", async () => {
    const names = (await l.member.list(Bastions, { namespace: PROJECT_NAMESPACE })).items.map((b) => b.metadata.name);
    return names.some((n) => n?.startsWith("cli-")) ? undefined : true;
  }, 60_000, 250);
  for (const name of ["fits-1", "fits-2"]) assert.equal(ready(await l.member.get(Bastions, { namespace: PROJECT_NAMESPACE, name }))?.status, "True", name);
}
