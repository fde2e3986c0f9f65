// The import rules of docs/architecture.md#folders-and-import-rules, checked: which folders may import which. A violation names
// the importing file and the import, so the fix is obvious.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

/** Local imports of a file, as paths relative to src/ (e.g. "apis/meta/v1/types.ts"). */
function localImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)];
  return specs
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((s) => s.startsWith("."))
    .map((s) => relative(src, resolve(dirname(file), s)));
}

interface Rule {
  /** Files under this folder of src/ ... */
  from: string;
  /** ... may import only from these folders of src/. */
  allow: string[];
}

const rules: Rule[] = [
  { from: "apis/", allow: ["apis/"] },
  { from: "utils/", allow: ["utils/"] },
  { from: "apimachinery/", allow: ["apis/", "utils/", "apimachinery/"] },
  { from: "apiserver/", allow: ["apis/", "utils/", "apimachinery/", "api/", "apiserver/", "plugins/"] },
  // The scheduler is a controller: what controllers import (the controller runtime and the client), never the server.
  { from: "scheduler/", allow: ["apis/", "utils/", "apimachinery/", "api/", "client/", "controllerruntime/", "scheduler/"] },
];

/** host/ touches the Linux host: only these may import it (tests and benchmarks may too). landscape/ is gardener-local, which owns the landscape's host objects (public network, teardown). */
const hostImporters = ["host/", "provider-local/", "nodeagent/", "vpn/", "landscape/", "cmd/"];

test("each layer imports only what it may", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file);
    for (const imp of localImports(file)) {
      if (imp.startsWith("..")) violations.push(`${rel} imports ${imp} (outside src/)`);
      for (const rule of rules) {
        if (rel.startsWith(rule.from) && !rule.allow.some((a) => imp.startsWith(a))) {
          violations.push(`${rel} imports ${imp}; ${rule.from} may import only ${rule.allow.join(", ")}`);
        }
      }
      if (imp.startsWith("host/") && !hostImporters.some((h) => rel.startsWith(h))) {
        violations.push(`${rel} imports ${imp}; only ${hostImporters.join(", ")} may import host/`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("the import scanner sees imports (guards the rule test itself)", () => {
  const imports = localImports(join(src, "apimachinery", "errors.ts"));
  assert.ok(imports.includes("apimachinery/field/errors.ts"), `found: ${imports.join(", ")}`);
});
