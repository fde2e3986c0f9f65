// Helpers of the bastion chaos and expiry e2e tests: a seeded PRNG, "gone" checks on both API servers,
// the host's view of the landscape's bastions, and SSH through a garden Bastion to a node.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bastion } from "../../../src/apis/operations/v1alpha1/types.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import type { Client } from "../../../src/client/client.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { ExtensionBastions } from "../../../src/extensions/resources.ts";
import { LinuxHost } from "../../../src/host/index.ts";
import { recordId } from "../../../src/host/records.ts";
import { PROJECT_NAMESPACE, SHOOT, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { POOL_OWNER } from "../../../src/provider-local/machines/pool.ts";
import type { Landscape } from "../support/landscape.ts";

export { prng } from "../../support/prng.ts";

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A garden Bastion of shoot local for `sshPublicKey`, open to `cidr`. */
export function gardenBastion(name: string, sshPublicKey: string, cidr: string): Bastion {
  return { metadata: { name, namespace: PROJECT_NAMESPACE }, spec: { shootRef: { name: SHOOT }, sshPublicKey, ingress: [{ ipBlock: { cidr } }] } };
}

async function absent(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** The extension Bastion `name` of shoot local does not exist in the seed. */
export function absentIn(seed: Client, name: string): Promise<boolean> {
  return absent(seed.get(ExtensionBastions, { namespace: SHOOT_TECHNICAL_ID, name }));
}

/** The garden Bastion and its extension Bastion in the seed are both gone. */
export async function bastionGone(l: Landscape, name: string): Promise<boolean> {
  return (await absent(l.garden.get(Bastions, { namespace: PROJECT_NAMESPACE, name }))) && (await absent(l.seed.get(ExtensionBastions, { namespace: SHOOT_TECHNICAL_ID, name })));
}

/** Names of the Bastions left in the garden (project namespace) and in the seed (shoot namespace). */
export async function remainingBastions(l: Landscape): Promise<{ garden: string[]; seed: string[] }> {
  const garden = (await l.garden.list(Bastions, { namespace: PROJECT_NAMESPACE })).items.map((b) => b.metadata.name!);
  const seed = (await l.seed.list(ExtensionBastions, { namespace: SHOOT_TECHNICAL_ID })).items.map((b) => b.metadata.name!);
  return { garden, seed };
}

export interface HostView {
  netns: string[];
  links: string[];
  tables: string[];
  mounts: string[];
  /** Command lines of the machine supervisors (one per machine). */
  supervisors: string[];
  machines: string[];
  /** Host records (their ids, with owners) of the state directory. */
  records: string[];
  /** Public addresses handed out (addresses.json), by owner. */
  publicAddresses: string[];
  /** Bastion addresses the workers let in (their `bastion_access` sets), as "<machine> <address>". */
  workerAccess: string[];
}

/** Everything of the landscape's prefix on the host, in a form to compare with a baseline. */
export async function hostView(l: Landscape): Promise<HostView> {
  const host = new LinuxHost({ stateDir: l.layout.hostState, prefix: l.prefix });
  const inv = await host.inventory();
  const machines = await host.listMachines();
  const workerAccess: string[] = [];
  for (const m of machines.filter((x) => x.name.includes(".worker-"))) {
    for (const set of ["bastions4", "bastions6"]) {
      const elements = await host.getSetElements(m.netns, { family: "inet", name: "bastion_access" }, set);
      for (const e of elements) workerAccess.push(`${m.name} ${e}`);
    }
  }
  const book = JSON.parse(readFileSync(join(l.layout.providerState, "addresses.json"), "utf8")) as Record<string, Record<string, string>>;
  const records = await host.listRecords();
  // provider-local's pool machines (held or booting, docs/adr/0015-bastion-machine-pool.md) come and go with
  // claims and refills under new names: not compared. A claimed one carries its bastion's owner and is.
  const pool = records.flatMap((r) => (r.kind === "machine" && r.owner === POOL_OWNER ? [r.name] : []));
  const notPool = (s: string): boolean => !pool.some((p) => s.includes(p));
  return {
    netns: inv.netns.filter(notPool).sort(),
    links: inv.links.sort(),
    tables: inv.tables.sort(),
    mounts: inv.mounts.filter(notPool).sort(),
    supervisors: inv.processes.map((p) => p.cmdline).filter((c) => c.startsWith("unshare ")).filter(notPool).sort(),
    machines: machines.map((m) => m.name).filter(notPool).sort(),
    records: records.map((r) => `${recordId(r)}${r.owner ? ` (${r.owner})` : ""}`).filter(notPool).sort(),
    publicAddresses: Object.keys(book["public"] ?? {}).sort(),
    workerAccess: workerAccess.sort(),
  };
}

/**
 * Whatever of a view belongs to a bastion machine: machine names carry ".bastion-" (and so do their
 * netns, directories and supervisors), owners "bastion/<namespace>/"; the workers' own `bastion_access`
 * tables are not a bastion's.
 */
export function bastionParts(v: HostView): string[] {
  return Object.values(v).flat().filter((s) => /\.bastion-|bastion\/shoot--/.test(s));
}

export interface SshResult {
  code: number;
  out: string;
}

/** `ssh` to a node through the bastion at `bastionIp` (ProxyCommand, like gardenctl), running `command`. */
export function sshThroughBastion(o: { bastionIp: string; bastionKey: string; nodeKey: string; nodeAddress: string; command: string }): Promise<SshResult> {
  const common = ["-oBatchMode=yes", "-oIdentitiesOnly=yes", "-oStrictHostKeyChecking=no", "-oUserKnownHostsFile=/dev/null", "-oGlobalKnownHostsFile=/dev/null", "-oConnectTimeout=5", "-oLogLevel=ERROR"];
  const proxy = ["ssh", ...common, `-i${o.bastionKey}`, "-W%h:%p", `gardener@${o.bastionIp}`].join(" ");
  const args = [...common, `-i${o.nodeKey}`, `-oProxyCommand=${proxy}`, `gardener@${o.nodeAddress}`, o.command];
  return new Promise((resolve) => {
    execFile("ssh", args, { timeout: 30_000, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, out: stdout + stderr });
    });
  });
}
