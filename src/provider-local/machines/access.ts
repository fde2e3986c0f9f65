// Which bastions a shoot's workers accept SSH from: every worker machine's `inet bastion_access` sets hold
// the node addresses of the shoot's bastion machines. Level-based: the sets are computed from the host
// records (the machines that exist), so adding and removing a bastion are the same operation.
import { addressOf, type Host, type HostRecord } from "../../host/index.ts";
import type { NodeNetwork } from "../network/networks.ts";
import { ownerPrefix, type MachineKind } from "./names.ts";
import { BASTION_ACCESS_TABLE, familySets } from "./tables.ts";

type MachineRecord = Extract<HostRecord, { kind: "machine" }>;

/**
 * Machine records of one kind of one shoot, by owner. Only the records whose names can be theirs are read
 * (machineName: `<namespace>.<kind>-...`): a sync of a shoot's two workers' sets reads the bastions' records
 * and two more, not every machine's twice.
 */
export async function shootMachines(host: Host, kind: MachineKind, namespace: string): Promise<MachineRecord[]> {
  const prefix = ownerPrefix(kind, namespace);
  const names = namespace.length <= 150 ? `machine/${namespace}.${kind}-` : "machine/";
  return (await host.listRecords((id) => id.startsWith(names))).filter((r): r is MachineRecord => r.kind === "machine" && (r.owner ?? "").startsWith(prefix));
}

/** The machine's address on the node network (without prefix length), if it has one. */
export function nodeAddressOf(m: Pick<MachineRecord, "interfaces">, net: NodeNetwork): string | undefined {
  const i = m.interfaces.find((x) => x.bridge === net.bridge && x.bridgeNetns === net.netns);
  return i ? addressOf(i.address) : undefined;
}

/** Bastion machines being built, not yet (surely) recorded: machine name -> its shoot and node address. */
export type ArrivingBastions = ReadonlyMap<string, { namespace: string; address: string }>;

/**
 * Node addresses of the shoot's bastion machines, without the machines in `exclude` (those being removed),
 * with those of `arriving` (being built) of this shoot.
 */
export async function bastionNodeAddresses(host: Host, net: NodeNetwork, exclude: ReadonlySet<string> = new Set(), arriving: ArrivingBastions = new Map()): Promise<string[]> {
  const out = new Set<string>();
  for (const m of await shootMachines(host, "bastion", net.namespace)) {
    if (exclude.has(m.name)) continue;
    const a = nodeAddressOf(m, net);
    if (a !== undefined) out.add(a);
  }
  for (const [m, a] of arriving) if (a.namespace === net.namespace && !exclude.has(m)) out.add(a.address);
  return [...out].sort();
}

export interface SyncResult {
  /** Worker machines whose sets were replaced. */
  updated: string[];
  /** Worker machines that failed (gone, not running, unreachable), with why. */
  failed: { machine: string; error: Error }[];
}

/**
 * Replaces the allowed-bastions sets of every running worker of the shoot in one transaction each.
 * Workers not running are skipped (they get the current list when they start). `arriving` bastions are
 * allowed before their machine is recorded, so a new bastion's machine and its workers' sets are made at
 * once rather than one after the other.
 */
export async function syncBastionAccess(host: Host, net: NodeNetwork, exclude: ReadonlySet<string> = new Set(), arriving: ArrivingBastions = new Map()): Promise<SyncResult> {
  const bastions = await bastionNodeAddresses(host, net, exclude, arriving);
  const sets = familySets("bastions", bastions);
  const result: SyncResult = { updated: [], failed: [] };
  // Every worker at once: each is its own namespace and transaction.
  await Promise.all(
    (await shootMachines(host, "worker", net.namespace)).map(async (w) => {
      try {
        const st = await host.machineStatus(w.name, { sockets: false });
        if (!st?.running) return;
        await host.replaceSetElements(w.netns, BASTION_ACCESS_TABLE, sets);
        result.updated.push(w.name);
      } catch (err) {
        result.failed.push({ machine: w.name, error: err instanceof Error ? err : new Error(String(err)) });
      }
    }),
  );
  result.updated.sort();
  result.failed.sort((a, b) => a.machine.localeCompare(b.machine));
  return result;
}
