// Whether one set of RBAC rules covers another, as [k8s] component-helpers/auth/rbac/validation
// (Covers, ruleCovers) decides it: every atomic (apiGroup, resource, verb, resourceName) or
// (nonResourceURL, verb) tuple a servant rule grants must be allowed by a single owner rule.
// `*` covers only where Kubernetes' comparison says so: a literal `*` verb, group or resource in
// the owner rule, `*/<subresource>` for `<resource>/<subresource>`, resourceNames only by an owner
// rule without names or naming them, URLs by equality or an owner URL ending in `*`.
//
// Kubernetes enumerates the tuples, whose number is the product of the list lengths: a small body
// can make it astronomically large. Here the values of each list are grouped by the set of owner
// rules that accept them (values accepted by the same owner rules are interchangeable), and the
// product is walked over those groups, stopping a branch as soon as no owner rule is left. The
// walk has a budget; the missing tuples are listed up to a limit, compacted as CompactRules does.
import type { PolicyRule } from "../../apis/rbac/v1/types.ts";

export interface CoversOptions {
  /** Work budget (bitset words combined). Default 4,000,000: a few tens of milliseconds. */
  maxSteps?: number;
  /** Missing atomic rules listed at most. Default 1000. */
  maxReported?: number;
}

export interface CoversResult {
  covered: boolean;
  /** The missing rules, compacted (one rule per group/resource/name with all its verbs), sorted by their compact string. */
  missing: PolicyRule[];
  /** Number of missing atomic rules (more than `missing` describes when the listing was cut). */
  uncovered: number;
  /** How many missing atomic rules `missing` leaves out. */
  omitted: number;
  /** The budget ran out before the answer was known; covered is then false. */
  exhausted: boolean;
}

type Bits = Uint32Array;

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const uniq = (xs: string[]): string[] => [...new Set(xs)];

/** For one list dimension: owner rules accepting any value (`*`), and per value the ones naming it. */
class Dimension {
  readonly any: Bits;
  readonly byValue = new Map<string, Bits>();

  constructor(private readonly words: number) {
    this.any = new Uint32Array(words);
  }

  add(value: string, owner: number): void {
    let b = this.byValue.get(value);
    if (!b) this.byValue.set(value, (b = new Uint32Array(this.words)));
    set(b, owner);
  }
}

function set(b: Bits, i: number): void {
  b[i >>> 5]! |= 1 << (i & 31);
}

function or(into: Bits, b: Bits | undefined): void {
  if (b) for (let i = 0; i < into.length; i++) into[i]! |= b[i]!;
}

/** The owner rules, indexed per dimension. */
class Owners {
  readonly words: number;
  readonly groups: Dimension;
  readonly resources: Dimension;
  readonly verbs: Dimension;
  /** Owner rules without resourceNames (they cover any name, and the "no name" of a servant rule). */
  readonly noNames: Bits;
  readonly names: Dimension;
  readonly exactURLs: Dimension;
  readonly prefixURLs: { prefix: string; owners: Bits }[] = [];

  constructor(rules: PolicyRule[]) {
    this.words = Math.max(1, Math.ceil(rules.length / 32));
    const dim = () => new Dimension(this.words);
    this.groups = dim();
    this.resources = dim();
    this.verbs = dim();
    this.names = dim();
    this.exactURLs = dim();
    this.noNames = new Uint32Array(this.words);
    const prefixes = new Map<string, Bits>();
    rules.forEach((r, i) => {
      for (const [d, values, all] of [
        [this.groups, list(r.apiGroups), "*"],
        [this.resources, list(r.resources), "*"],
        [this.verbs, list(r.verbs), "*"],
      ] as const) {
        for (const v of values) {
          if (v === all) set(d.any, i);
          else d.add(v, i);
        }
      }
      const names = list(r.resourceNames);
      if (names.length === 0) set(this.noNames, i);
      for (const n of names) this.names.add(n, i);
      for (const u of list(r.nonResourceURLs)) {
        this.exactURLs.add(u, i);
        if (!u.endsWith("*")) continue;
        const prefix = u.replace(/\*+$/, "");
        let b = prefixes.get(prefix);
        if (!b) prefixes.set(prefix, (b = new Uint32Array(this.words)));
        set(b, i);
      }
    });
    for (const [prefix, owners] of prefixes) this.prefixURLs.push({ prefix, owners });
  }

  group(g: string): Bits | undefined {
    return this.accepting(this.groups, g);
  }

  resource(r: string): Bits | undefined {
    const slash = r.indexOf("/");
    const sub = slash >= 0 ? this.resources.byValue.get(`*/${r.slice(slash + 1)}`) : undefined;
    const exact = this.resources.byValue.get(r);
    if (!exact && !sub) return undefined;
    const b = Uint32Array.from(this.resources.any);
    or(b, exact);
    or(b, sub);
    return b;
  }

  verb(v: string): Bits | undefined {
    return this.accepting(this.verbs, v);
  }

  name(n: string): Bits | undefined {
    const named = this.names.byValue.get(n);
    if (!named) return undefined;
    const b = Uint32Array.from(this.noNames);
    or(b, named);
    return b;
  }

  url(u: string): Bits | undefined {
    let b: Bits | undefined;
    const add = (x: Bits | undefined) => {
      if (!x) return;
      b ??= new Uint32Array(this.words);
      or(b, x);
    };
    add(this.exactURLs.byValue.get(u));
    for (const p of this.prefixURLs) if (u.startsWith(p.prefix)) add(p.owners);
    return b;
  }

  /** The owners accepting v, or undefined when only the dimension's `*` owners do. */
  private accepting(d: Dimension, v: string): Bits | undefined {
    const named = d.byValue.get(v);
    if (!named) return undefined;
    const b = Uint32Array.from(d.any);
    or(b, named);
    return b;
  }
}

/** Values of one list with the same accepting owners; `index` is the value's position in its list. */
interface Class {
  owners: Bits;
  members: { value: string; index: number }[];
}

/** Groups values by their accepting owners; `fallback` is the set for values no owner names. */
function classes(values: string[], accepting: (v: string) => Bits | undefined, fallback: Bits): Class[] {
  const byKey = new Map<string, Class>();
  const common: Class = { owners: fallback, members: [] };
  values.forEach((value, index) => {
    const owners = accepting(value);
    if (!owners) {
      common.members.push({ value, index });
      return;
    }
    const key = owners.join(",");
    let c = byKey.get(key);
    if (!c) byKey.set(key, (c = { owners, members: [] }));
    c.members.push({ value, index });
  });
  const out = [...byKey.values()];
  if (common.members.length > 0) out.push(common);
  return out;
}

/** A missing atomic rule; `rule` and `verb` order the verbs of a compacted rule as Kubernetes lists them. */
interface Missing {
  group?: string;
  resource?: string;
  name?: string;
  url?: string;
  verb: string;
  rule: number;
  verbIndex: number;
}

class BudgetExceeded extends Error {}

class Walk {
  steps = 0;
  uncovered = 0;
  readonly missing: Missing[] = [];

  constructor(
    private readonly words: number,
    private readonly maxSteps: number,
    private readonly maxReported: number,
  ) {}

  /**
   * Walks the product of `levels` (each a list of classes), AND-ing owner sets; a branch whose set
   * is empty is wholly uncovered. `make` turns one chosen member per level into a Missing.
   */
  run(levels: Class[][], make: (members: { value: string; index: number }[]) => Missing): void {
    const all = new Uint32Array(this.words).fill(0xffffffff);
    const flat = levels.map((cs) => cs.flatMap((c) => c.members));
    const chosen: Class[] = [];
    const visit = (depth: number, acc: Bits): void => {
      if (depth === levels.length) return; // some owner rule covers every tuple of this branch
      for (const c of levels[depth]!) {
        this.steps += this.words;
        if (this.steps > this.maxSteps) throw new BudgetExceeded();
        const next = new Uint32Array(this.words);
        let any = 0;
        for (let i = 0; i < this.words; i++) any |= next[i] = acc[i]! & c.owners[i]!;
        chosen.push(c);
        if (any === 0) this.uncoveredBranch([...chosen.map((x) => x.members), ...flat.slice(depth + 1)], make);
        else visit(depth + 1, next);
        chosen.pop();
      }
    };
    visit(0, all);
  }

  /** Counts the tuples of a branch and records them while the report has room. */
  private uncoveredBranch(levels: { value: string; index: number }[][], make: (members: { value: string; index: number }[]) => Missing): void {
    this.uncovered += levels.reduce((n, l) => n * l.length, 1);
    const picked: { value: string; index: number }[] = [];
    const record = (depth: number): void => {
      if (this.missing.length >= this.maxReported) return;
      if (depth === levels.length) {
        this.missing.push(make(picked));
        return;
      }
      for (const m of levels[depth]!) {
        if (this.missing.length >= this.maxReported) return;
        picked.push(m);
        record(depth + 1);
        picked.pop();
      }
    };
    record(0);
  }
}

const NO_NAME = { value: "", index: -1 };

/** Kubernetes' Covers: whether `owner` allows everything `servant` grants, and what it does not. */
export function covers(owner: PolicyRule[], servant: PolicyRule[], opts: CoversOptions = {}): CoversResult {
  const o = new Owners(owner);
  const walk = new Walk(o.words, opts.maxSteps ?? 4_000_000, opts.maxReported ?? 1000);
  const none = new Uint32Array(o.words);
  try {
    servant.forEach((rule, ri) => {
      const verbs = uniq(list(rule.verbs));
      const groups = uniq(list(rule.apiGroups));
      const resources = uniq(list(rule.resources));
      const names = uniq(list(rule.resourceNames));
      const verbClasses = classes(verbs, (v) => o.verb(v), o.verbs.any);
      if (groups.length > 0 && resources.length > 0 && verbs.length > 0) {
        const nameClasses = names.length > 0 ? classes(names, (n) => o.name(n), o.noNames) : [{ owners: o.noNames, members: [NO_NAME] }];
        walk.run(
          [classes(groups, (g) => o.group(g), o.groups.any), classes(resources, (r) => o.resource(r), o.resources.any), verbClasses, nameClasses],
          ([g, r, v, n]) => ({ group: g!.value, resource: r!.value, verb: v!.value, ...(n!.index >= 0 ? { name: n!.value } : {}), rule: ri, verbIndex: v!.index }),
        );
      }
      const urls = uniq(list(rule.nonResourceURLs));
      if (urls.length > 0 && verbs.length > 0) {
        // A URL tuple has no name: only owner rules without resourceNames cover it.
        walk.run([classes(urls, (u) => o.url(u), none), verbClasses, [{ owners: o.noNames, members: [NO_NAME] }]], ([u, v]) => ({
          url: u!.value,
          verb: v!.value,
          rule: ri,
          verbIndex: v!.index,
        }));
      }
    });
  } catch (err) {
    if (!(err instanceof BudgetExceeded)) throw err;
    return { covered: false, missing: [], uncovered: 0, omitted: 0, exhausted: true };
  }
  const missing = compact(walk.missing);
  return { covered: walk.uncovered === 0, missing, uncovered: walk.uncovered, omitted: walk.uncovered - walk.missing.length, exhausted: false };
}

/** CompactRules: resource tuples differing only by verb become one rule; URL tuples stay; sorted by compact string. */
function compact(missing: Missing[]): PolicyRule[] {
  const byResource = new Map<string, Missing[]>();
  const out: PolicyRule[] = [];
  for (const m of missing) {
    if (m.url !== undefined) {
      out.push({ nonResourceURLs: [m.url], verbs: [m.verb] });
      continue;
    }
    const key = JSON.stringify([m.group, m.resource, m.name ?? null]);
    let ms = byResource.get(key);
    if (!ms) byResource.set(key, (ms = []));
    ms.push(m);
  }
  for (const ms of byResource.values()) {
    ms.sort((a, b) => a.rule - b.rule || a.verbIndex - b.verbIndex);
    const m = ms[0]!;
    const rule: PolicyRule = { apiGroups: [m.group!], resources: [m.resource!], verbs: uniq(ms.map((x) => x.verb)) };
    if (m.name !== undefined) rule.resourceNames = [m.name];
    out.push(rule);
  }
  const keyed = out.map((r) => [compactString(r), r] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const seen = new Set<string>();
  return keyed.filter(([k]) => !seen.has(k) && seen.add(k)).map(([, r]) => r);
}

/** rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  const field = (name: string, v: string[] | undefined) => {
    if (v && v.length > 0) parts.push(`${name}:${goQuoteList(v)}`);
  };
  field("APIGroups", r.apiGroups);
  field("Resources", r.resources);
  field("NonResourceURLs", r.nonResourceURLs);
  field("ResourceNames", r.resourceNames);
  field("Verbs", r.verbs);
  return `{${parts.join(", ")}}`;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(xs: string[]): string {
  return `[${xs.map(goQuote).join(" ")}]`;
}

const ESCAPES: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", '"': '\\"', "\\": "\\\\" };

/** strconv.Quote for the strings RBAC objects hold: escapes, control characters as \x.., lone surrogates as U+FFFD. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ESCAPES[ch]) out += ESCAPES[ch];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd";
    else out += ch;
  }
  return `${out}"`;
}
