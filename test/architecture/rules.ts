// The checks of test/architecture.test.ts as pure functions over an in-memory view of the tree, so
// that the test can run them on the real src/ and on small fixtures that break each rule.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** One source file: its path relative to src/ ("apis/meta/v1/types.ts"), its text and its imports. */
export interface SourceFile {
  path: string;
  text: string;
  /** Relative imports, resolved to paths relative to src/ (outside src/ they start with ".."). */
  local: string[];
  /** Package and node: imports ("node:fs", "pino", "@kubernetes/client-node"). */
  packages: string[];
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']|require\(\s*["']([^"']+)["']\s*\)/g;

/** Parses the imports of one file whose path (relative to src/) is `path`. */
export function parseSource(path: string, text: string): SourceFile {
  const local: string[] = [];
  const packages: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4] ?? "";
    if (spec.startsWith(".")) local.push(join(dirname(path), spec));
    else packages.push(spec);
  }
  return { path, text, local, packages };
}

/** Every non-test .ts file under dir, parsed. */
export function readSources(dir: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(parseSource(relative(dir, p), readFileSync(p, "utf8")));
    }
  };
  walk(resolve(dir));
  return out;
}

/** Top-level folders of src/ and what each may import besides itself; "*" is anything. */
export type LayerTable = Map<string, string[] | "*">;

/**
 * Reads the table of docs/architecture.md's "Folders and import rules": rows
 * `| \`src/<folder>/\` | <what> | <may import> |`, where the last cell lists folders in
 * backticks (a folder, or a subfolder such as \`apiserver/certs/\` for just that part), or says
 * "nothing" or "everything".
 */
export function parseLayerTable(markdown: string): LayerTable {
  const table: LayerTable = new Map();
  for (const line of markdown.split("\n")) {
    const m = /^\|\s*`src\/([a-z0-9-]+)\/`\s*\|[^|]*\|([^|]*)\|\s*$/.exec(line);
    if (!m) continue;
    const cell = m[2]!.trim();
    table.set(m[1]!, cell === "everything" ? "*" : [...cell.matchAll(/`([a-z0-9/-]+)\/`/g)].map((x) => x[1]!));
  }
  return table;
}

const top = (path: string) => path.split("/")[0]!;

/** Files whose folder has no row, rows without a folder, and imports the table does not allow. */
export function layerViolations(files: SourceFile[], table: LayerTable, folders: string[]): string[] {
  const out: string[] = [];
  for (const f of folders) if (!table.has(f)) out.push(`src/${f}/ has no row in docs/architecture.md's import table`);
  for (const f of table.keys()) if (!folders.includes(f)) out.push(`docs/architecture.md lists src/${f}/, which does not exist`);
  for (const file of files) {
    const from = top(file.path);
    const allowed = table.get(from);
    for (const imp of file.local) {
      if (imp.startsWith("..")) {
        out.push(`${file.path} imports ${imp} (outside src/)`);
        continue;
      }
      if (top(imp) === from || allowed === undefined || allowed === "*" || allowed.some((a) => imp.startsWith(`${a}/`))) continue;
      out.push(`${file.path} imports ${imp}; src/${from}/ may import only ${allowed.map((a) => `${a}/`).join(", ") || "itself"}`);
    }
  }
  return out;
}

/** Import cycles between files (type-only imports count: they couple the modules too), each as a path a -> b -> a. */
export function importCycles(files: SourceFile[]): string[][] {
  const edges = new Map(files.map((f) => [f.path, f.local.filter((l) => !l.startsWith(".."))]));
  // Tarjan's strongly connected components, iteratively (deep trees would overflow a recursive one).
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const start of edges.keys()) {
    if (idx.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    while (work.length) {
      const frame = work[work.length - 1]!;
      const [v, i] = frame;
      if (i === 0 && !idx.has(v)) {
        idx.set(v, index);
        low.set(v, index++);
        stack.push(v);
        onStack.add(v);
      }
      const next = (edges.get(v) ?? [])[i];
      if (next !== undefined) {
        frame[1]++;
        if (!edges.has(next)) continue;
        if (!idx.has(next)) work.push([next, 0]);
        else if (onStack.has(next)) low.set(v, Math.min(low.get(v)!, idx.get(next)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
      }
      if (low.get(v) === idx.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1 || edges.get(v)!.includes(v)) cycles.push(cyclePath(scc, edges));
      }
    }
  }
  return cycles;
}

/** One concrete cycle through a strongly connected component, for the message. */
function cyclePath(scc: string[], edges: Map<string, string[]>): string[] {
  const members = new Set(scc);
  const start = [...scc].sort()[0]!;
  const path = [start];
  const seen = new Set([start]);
  for (;;) {
    const cur = path[path.length - 1]!;
    const outs = edges.get(cur)!.filter((n) => members.has(n));
    if (outs.includes(start)) return [...path, start];
    const next = outs.find((n) => !seen.has(n)) ?? outs[0]!;
    if (seen.has(next)) return [...path, next];
    seen.add(next);
    path.push(next);
  }
}

/** Modules that start processes; only src/host/ may import them. */
export const PROCESS_MODULES = ["child_process", "node:child_process", "cluster", "node:cluster", "execa", "cross-spawn", "node-pty", "zx", "nano-spawn", "tinyexec"];

export function spawnViolations(files: SourceFile[]): string[] {
  return files
    .filter((f) => top(f.path) !== "host")
    .flatMap((f) => f.packages.filter((p) => PROCESS_MODULES.includes(p)).map((p) => `${f.path} imports ${p}; only src/host/ starts processes`));
}

/** Text that points outside the repository. */
export const FOREIGN_REFERENCES = ["shared/", "../shared", "spec §"];

/** Files (path and text) that cite something a clone does not contain. */
export function foreignReferences(files: { path: string; text: string }[]): string[] {
  return files.flatMap((f) =>
    f.text.split("\n").flatMap((line, i) => FOREIGN_REFERENCES.filter((r) => line.includes(r)).map((r) => `${f.path}:${i + 1} cites "${r}": ${line.trim().slice(0, 120)}`)),
  );
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** `docs/<file>.md#<anchor>` citations whose file or heading does not exist (URLs excluded); `docs` maps each doc path to its text. */
export function brokenDocLinks(files: { path: string; text: string }[], docs: Map<string, string>): string[] {
  const anchors = new Map([...docs].map(([p, text]) => [p, new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1]!)))]));
  const out: string[] = [];
  for (const f of files) {
    for (const m of f.text.matchAll(/(?<![\w/.-])docs\/([\w./-]+\.md)(?:#([\w-]+))?/g)) {
      const doc = `docs/${m[1]!}`;
      const have = anchors.get(doc);
      if (!have) out.push(`${f.path} cites ${doc}, which does not exist`);
      else if (m[2] && !have.has(m[2])) out.push(`${f.path} cites ${doc}#${m[2]}, which has no such heading`);
    }
  }
  return out;
}

// The head of a catch block, `catch (err) {` or `.catch((err: unknown) => {`: the error's name is group 1
// or group 2, and `\1\2` matches it either way (a group that did not take part matches "").
const CATCH = String.raw`(?:catch\s*\(\s*(\w+)(?:\s*:\s*unknown)?\s*\)|\.catch\(\s*\(?\s*(\w+)(?:\s*:\s*unknown)?\s*\)?\s*=>)\s*\{\s*`;
const notFoundCatch = (body: string) => new RegExp(CATCH + body.replaceAll("ERR", String.raw`\1\2`));

/**
 * Helpers written once, and the shape of a hand-made copy of each. A `multiline` pattern is matched
 * against the whole file (the copy spans lines), the others line by line.
 */
export const HELPER_COPIES: { helper: string; home: string; pattern: RegExp; multiline?: boolean }[] = [
  {
    helper: "isRecord/recordOrEmpty",
    home: "src/utils/guards.ts",
    pattern: /typeof ([\w.]+) === "object" && \1 !== null && !Array\.isArray\(\1\)|([\w.]+) !== null && typeof \2 === "object" && !Array\.isArray\(\2\)/,
  },
  {
    helper: "metaTime/microTime/rfc3339Nano",
    home: "src/utils/time.ts",
    pattern: /toISOString\(\)\s*\.(?:slice\(0, ?(?:19|20|23)\)|replace\(\s*(?:"\.000|'\.000|\/\\\.))/,
  },
  // A catch whose only work is to let NotFound through: rethrow unless NotFound, return undefined on it, or resolve to undefined on it.
  { helper: "unlessNotFound", home: "src/apimachinery/errors.ts", multiline: true, pattern: notFoundCatch(String.raw`if\s*\(\s*!isNotFound\(ERR\)\s*\)\s*\{?\s*throw\s+ERR;?\s*\}?\s*\}`) },
  { helper: "unlessNotFound", home: "src/apimachinery/errors.ts", multiline: true, pattern: notFoundCatch(String.raw`if\s*\(\s*isNotFound\(ERR\)\s*\)\s*return(?:\s+undefined)?;\s*throw\s+ERR;?\s*\}`) },
  {
    helper: "unlessNotFound",
    home: "src/apimachinery/errors.ts",
    multiline: true,
    pattern: /\.catch\(\s*\(?\s*(\w+)(?:\s*:\s*unknown)?\s*\)?\s*=>\s*\(?\s*(?:isNotFound\(\1\)|\1 instanceof StatusError && \1\.code === 404)\s*\?\s*undefined\s*:\s*Promise\.reject\(\1\)/,
  },
];

/** Lines (of files other than the helpers' homes) that write one of HELPER_COPIES by hand. */
export function helperCopies(files: { path: string; text: string }[]): string[] {
  return files.flatMap((f) => {
    const lines = f.text.split("\n");
    const report = (h: (typeof HELPER_COPIES)[number], i: number) => `${f.path}:${i + 1} writes ${h.helper} by hand; use ${h.home}: ${(lines[i] ?? "").trim().slice(0, 120)}`;
    return HELPER_COPIES.filter((h) => f.path !== h.home).flatMap((h) => {
      if (!h.multiline) return lines.flatMap((line, i) => (h.pattern.test(line) ? [report(h, i)] : []));
      return [...f.text.matchAll(new RegExp(h.pattern.source, "g"))].map((m) => report(h, f.text.slice(0, m.index).split("\n").length - 1));
    });
  });
}
