// nftables tables inside network namespaces, applied with `nft -f -` (one transaction per call).
import { ownNetns, ownedFields, recorded, type HostContext, type Owned } from "./context.ts";
import { recordId } from "./records.ts";
import type { Exec } from "./exec.ts";
import { HostSpecError } from "./names.ts";
import { formatCidr, network, parseCidr } from "./cidr.ts";
import { netnsExists } from "./netns.ts";
import {
  renderApplyTable,
  renderDeleteTable,
  renderReplaceSets,
  validateIdent,
  type NftFamily,
  type NftTable,
  type SetContents,
} from "./nft-render.ts";

export interface TableRef {
  family: NftFamily;
  name: string;
}

function checkTable(ctx: HostContext, netns: string | undefined, name: string): void {
  ownNetns(ctx, netns);
  validateIdent("table", name);
  if (netns === undefined && !ctx.names.ownsTable(name)) {
    throw new HostSpecError(`nft table ${name} in the host namespace must start with ${ctx.names.tablePrefix}`);
  }
}

async function nftScript(exec: Exec, netns: string | undefined, script: string): Promise<void> {
  await exec.run("nft", ["-f", "-"], { input: script, ...(netns !== undefined ? { netns } : {}) });
}

/** Creates or replaces the whole table atomically. */
export async function applyTable(ctx: HostContext, netns: string | undefined, table: NftTable, owned: Owned = {}): Promise<void> {
  checkTable(ctx, netns, table.name);
  const script = renderApplyTable(table);
  const input = { kind: "nftTable" as const, family: table.family, name: table.name, ...(netns ? { netns } : {}), ...ownedFields(owned) };
  await recorded(ctx, input, () => nftScript(ctx.exec, netns, script));
}

/** Replaces the contents of the named sets in one transaction; the table must exist. */
export async function replaceSetElements(ctx: HostContext, netns: string | undefined, table: TableRef, sets: readonly SetContents[]): Promise<void> {
  checkTable(ctx, netns, table.name);
  if (sets.length === 0) return;
  await nftScript(ctx.exec, netns, renderReplaceSets(table.family, table.name, sets));
}

/** Deletes the table if present; an absent namespace means the table is gone too. */
export async function deleteTable(ctx: HostContext, netns: string | undefined, table: TableRef): Promise<void> {
  checkTable(ctx, netns, table.name);
  if (netns === undefined || (await netnsExists(ctx.exec, netns))) {
    await nftScript(ctx.exec, netns, renderDeleteTable(table.family, table.name));
  }
  await ctx.records.delete(recordId({ kind: "nftTable", ...(netns ? { netns } : {}), family: table.family, name: table.name }));
}

interface NftJson {
  nftables?: Record<string, unknown>[];
}

export async function listTables(exec: Exec, netns?: string): Promise<TableRef[]> {
  const r = await exec.run("nft", ["-j", "list", "tables"], netns !== undefined ? { netns } : {});
  const parsed = (r.stdout.trim() ? JSON.parse(r.stdout) : {}) as NftJson;
  const out: TableRef[] = [];
  for (const item of parsed.nftables ?? []) {
    const t = item["table"] as { family?: NftFamily; name?: string } | undefined;
    if (t?.family && t.name) out.push({ family: t.family, name: t.name });
  }
  return out;
}

type NftElem = string | { prefix?: { addr: string; len: number }; range?: [string, string]; elem?: { val: NftElem } };

function elemToCidr(e: NftElem): string[] {
  if (typeof e === "string") return [formatCidr(parseCidr(e))];
  if (e.elem) return elemToCidr(e.elem.val);
  if (e.prefix) return [formatCidr(network(parseCidr(`${e.prefix.addr}/${e.prefix.len}`)))];
  if (e.range) return [`${e.range[0]}-${e.range[1]}`];
  return [];
}

/** The elements the kernel holds for a set, as CIDRs (ranges that are no prefix as "a-b"). */
export async function getSetElements(exec: Exec, netns: string | undefined, table: TableRef, set: string): Promise<string[]> {
  validateIdent("set", set);
  const r = await exec.run("nft", ["-j", "list", "set", table.family, table.name, set], netns !== undefined ? { netns } : {});
  const parsed = JSON.parse(r.stdout) as NftJson;
  for (const item of parsed.nftables ?? []) {
    const s = item["set"] as { elem?: NftElem[] } | undefined;
    if (s) return (s.elem ?? []).flatMap(elemToCidr);
  }
  return [];
}
