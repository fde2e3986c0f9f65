// A set of field paths (structured-merge-diff's fieldpath.Set): at each level the elements that
// are members (owned paths ending here) and the elements with deeper paths. Serialized as
// managedFields' `fieldsV1`: `{"f:spec": {".": {}, "f:replicas": {}}}`, "." marking a path that
// is a member and also has children.
import { comparePE, type PE, parsePE } from "./pathelement.ts";
import { isRecord } from "../../utils/guards.ts";

/** Built once and then only read: operations return new sets that may share unchanged subtrees. */
export class FieldSet {
  readonly members = new Set<PE>();
  readonly children = new Map<PE, FieldSet>();

  static of(...paths: PE[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  empty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** The set below `pe` (created when missing). */
  descend(pe: PE): FieldSet {
    let c = this.children.get(pe);
    if (!c) this.children.set(pe, (c = new FieldSet()));
    return c;
  }

  insert(path: readonly PE[]): void {
    if (path.length === 0) return;
    if (path.length === 1) this.members.add(path[0]!);
    else this.descend(path[0]!).insert(path.slice(1));
  }

  has(path: readonly PE[]): boolean {
    if (path.length <= 1) return path.length === 1 && this.members.has(path[0]!);
    return this.children.get(path[0]!)?.has(path.slice(1)) ?? false;
  }

  union(o: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(o);
    return out;
  }

  /** Adds every path of o to this set, in place. */
  addAll(o: FieldSet): void {
    for (const m of o.members) this.members.add(m);
    for (const [pe, c] of o.children) this.descend(pe).addAll(c);
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (!oc) continue;
      const i = c.intersection(oc);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** The paths of this set that are not paths of o (a path's descendants are kept). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      const d = oc ? c.difference(oc) : c;
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  /** The paths of this set that are neither paths of o nor below a path of o. */
  recursiveDifference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (o.members.has(pe)) continue;
      const oc = o.children.get(pe);
      const d = oc ? c.recursiveDifference(oc) : c;
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  /**
   * The same set without the top-level elements `drop` selects (and everything below them). The
   * result shares the kept subtrees (sets are not changed once built), or is this set itself.
   */
  withoutTop(drop: (pe: PE) => boolean): FieldSet {
    if (![...this.members, ...this.children.keys()].some(drop)) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!drop(m)) out.members.add(m);
    for (const [pe, c] of this.children) if (!drop(pe)) out.children.set(pe, c);
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.copy());
    return out;
  }

  /** Every path, in structured-merge-diff's order: this level's members, then each child's paths. */
  paths(prefix: PE[] = []): PE[][] {
    const out: PE[][] = [];
    for (const m of [...this.members].sort(comparePE)) out.push([...prefix, m]);
    for (const pe of [...this.children.keys()].sort(comparePE)) out.push(...this.children.get(pe)!.paths([...prefix, pe]));
    return out;
  }

  /** managedFields' fieldsV1 form. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(self: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (self) out["."] = {};
    const pes = new Set<PE>([...this.members, ...this.children.keys()]);
    for (const pe of [...pes].sort(comparePE)) {
      const c = this.children.get(pe);
      out[pe] = c ? c.emit(this.members.has(pe)) : {};
    }
    return out;
  }

  /** Parses fieldsV1; throws on anything that is not a well-formed set. */
  static fromFieldsV1(v: unknown, maxDepth = 200): FieldSet {
    const out = new FieldSet();
    parseInto(out, v, maxDepth);
    return out;
  }
}

function parseInto(set: FieldSet, v: unknown, depth: number): void {
  if (!isRecord(v)) throw new Error("fieldsV1: expected an object");
  if (depth <= 0) throw new Error("fieldsV1: nested too deeply");
  for (const [key, child] of Object.entries(v)) {
    if (key === ".") {
      if (!isRecord(child)) throw new Error("fieldsV1: expected an object");
      continue;
    }
    const pe = parsePE(key);
    if (!isRecord(child)) throw new Error("fieldsV1: expected an object");
    const keys = Object.keys(child);
    if (keys.length === 0 || keys.includes(".")) set.members.add(pe);
    if (keys.some((k) => k !== ".")) parseInto(set.descend(pe), child, depth - 1);
  }
}
