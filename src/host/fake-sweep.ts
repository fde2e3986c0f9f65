// Inventory and sweep of the FakeHost's in-memory state: record-driven removal, then leftovers by name,
// with the same keep() semantics as the real sweep.
import type { FakeState } from "./fake-state.ts";
import { isBelow } from "./mounts.ts";
import type { Names } from "./names.ts";
import type { NftFamily } from "./nft-render.ts";
import { recordId, type HostRecord } from "./records.ts";
import { claims, keptSet, type HostInventory, type SweepReport } from "./sweep.ts";

export function fakeInventory(state: FakeState, names: Names, stateDir: string): HostInventory {
  const processes = [
    ...[...state.processes.values()].filter((p) => p.running && p.process).map((p) => ({ ...p.process!, cmdline: p.name })),
    ...[...state.machines.values()].filter((m) => m.running && m.record.supervisor).map((m) => ({ ...m.record.supervisor!, cmdline: `machine ${m.record.name}` })),
  ];
  return {
    netns: [...state.netns].filter((n) => names.owns(n)).sort(),
    links: [...state.links.values()].filter((l) => l.netns === undefined && names.owns(l.name)).map((l) => l.name).sort(),
    tables: state.listTables(undefined).filter((t) => names.ownsTable(t.name)).map((t) => `${t.family} ${t.name}`),
    mounts: [...state.mounts].filter((m) => isBelow(stateDir, m)).sort(),
    processes,
  };
}

export function fakeSweep(state: FakeState, names: Names, keep: (r: HostRecord) => boolean, stateDir: string): SweepReport {
  const report: SweepReport = { removed: [], failed: [] };
  const removed = (what: string) => report.removed.push(what);
  const keptIds = keptSet([...state.records.values()], keep);
  const order: HostRecord["kind"][] = ["machine", "process", "mount", "nftTable", "route", "link", "netns"];
  for (const kind of order) {
    for (const r of [...state.records.values()]) {
      if (r.kind !== kind || keptIds.has(recordId(r)) || !state.records.has(recordId(r))) continue;
      state.removeRecorded(r);
      removed(recordId(r));
    }
  }
  const claimed = claims([...state.records.values()].filter((r) => keptIds.has(recordId(r))));
  for (const m of [...state.machines.values()]) {
    if (claimed.dirs.has(m.record.dir)) continue;
    state.stopMachine(m.record.name);
    removed(`machine ${m.record.name}`);
  }
  for (const p of [...state.processes.values()]) {
    if (!p.process || claimed.pids.has(p.process.pid)) continue;
    state.stopProcess(p.name);
    removed(`process ${p.name}`);
  }
  const inv = fakeInventory(state, names, stateDir);
  for (const m of inv.mounts) {
    if (claimed.mounts.some((k) => isBelow(k, m))) continue;
    state.unmount(m);
    removed(`mount ${m}`);
  }
  for (const t of inv.tables) {
    if (claimed.tables.has(`- ${t}`)) continue;
    const [family, name] = t.split(" ") as [NftFamily, string];
    state.deleteTable(undefined, family, name);
    removed(`nft table ${t}`);
  }
  for (const n of claimed.netns) {
    if (!state.netns.has(n)) continue;
    for (const t of state.listTables(n)) {
      if (!names.ownsTable(t.name) || claimed.tables.has(`${n} ${t.family} ${t.name}`)) continue;
      state.deleteTable(n, t.family, t.name);
      removed(`nft table ${n} ${t.family} ${t.name}`);
    }
  }
  for (const n of inv.netns) {
    if (claimed.netns.has(n)) continue;
    state.deleteNetns(n);
    removed(`netns ${n}`);
  }
  for (const l of inv.links) {
    if (claimed.links.has(l) || !state.links.has(state.linkKey(l, undefined))) continue;
    state.deleteLink(l, undefined);
    removed(`link ${l}`);
  }
  return report;
}
