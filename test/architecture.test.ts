// The rules of docs/architecture.md#folders-and-import-rules, checked on the real tree, and each rule
// shown failing on a small fixture (so a check that silently stopped working would be noticed).
// A violation names the file and the import, so the fix is obvious.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  brokenDocLinks,
  foreignReferences,
  helperCopies,
  importCycles,
  layerViolations,
  parseLayerTable,
  parseSource,
  readSources,
  spawnViolations,
} from "./architecture/rules.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const architectureDoc = readFileSync(join(root, "docs", "architecture.md"), "utf8");

/** Text files under these folders of the repository (and README.md), as { path, text }. */
function textFiles(folders: string[], ext: RegExp): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (ext.test(name)) out.push({ path: relative(root, p), text: readFileSync(p, "utf8") });
    }
  };
  for (const f of folders) walk(join(root, f));
  out.push({ path: "README.md", text: readFileSync(join(root, "README.md"), "utf8") });
  return out;
}

const srcFolders = readdirSync(src).filter((n) => statSync(join(src, n)).isDirectory());

void describe("the repository", () => {
  const sources = readSources(src);

  void it("has a layer rule for every folder of src/, and every import follows it", () => {
    const table = parseLayerTable(architectureDoc);
    assert.ok(table.size >= 15, `docs/architecture.md's table has only ${table.size} rows`);
    assert.deepEqual(layerViolations(sources, table, srcFolders), []);
  });

  void it("has no import cycles", () => {
    assert.deepEqual(
      importCycles(sources).map((c) => c.join(" -> ")),
      [],
    );
  });

  void it("starts processes only in src/host/", () => {
    assert.deepEqual(spawnViolations(sources), []);
  });

  void it("cites nothing outside the repository, and only doc headings that exist", () => {
    const texts = textFiles(["src", "docs"], /\.(ts|md|c|json|yaml)$/);
    assert.deepEqual(foreignReferences(texts), []);
    // This file's fixtures cite made-up docs on purpose.
    const others = textFiles(["test", "bench", "scripts", "manifests"], /\.(ts|mjs|md|yaml)$/).filter((f) => f.path !== "test/architecture.test.ts");
    const all = [...texts, ...others];
    const docs = new Map(texts.filter((f) => f.path.startsWith("docs/")).map((f) => [f.path, f.text]));
    assert.deepEqual(brokenDocLinks(all, docs), []);
  });

  void it("writes the isRecord guard, the RFC 3339 formatters and unlessNotFound only once", () => {
    const files = textFiles(["src", "test", "bench", "scripts"], /\.(ts|mjs)$/).filter((f) => f.path !== "test/architecture.test.ts" && f.path !== "test/architecture/rules.ts");
    assert.deepEqual(helperCopies(files), []);
  });

  void it("the scanner sees static, dynamic, type-only and side-effect imports", () => {
    const f = parseSource(
      "a/x.ts",
      'import { y } from "./y.ts";\nimport type { Z } from "../b/z.ts";\nexport { w } from "./w.ts";\nimport "./side.ts";\nconst m = await import("../c/m.ts");\nimport { spawn } from "node:child_process";',
    );
    assert.deepEqual(f.local, ["a/y.ts", "b/z.ts", "a/w.ts", "a/side.ts", "c/m.ts"]);
    assert.deepEqual(f.packages, ["node:child_process"]);
    assert.ok(sources.find((s) => s.path === "apimachinery/errors.ts")?.local.includes("apimachinery/field/errors.ts"));
  });
});

void describe("each rule fails on a fixture that breaks it", () => {
  const table = parseLayerTable(
    [
      "| folder | what | may import |",
      "|---|---|---|",
      "| `src/utils/` | helpers | nothing |",
      "| `src/api/` | pure | `utils/`, `server/certs/` (just that part) |",
      "| `src/cmd/` | roots | everything |",
    ].join("\n"),
  );
  const file = (path: string, text: string) => parseSource(path, text);

  void it("parses the table: nothing, a list, everything", () => {
    assert.deepEqual([...table], [
      ["utils", []],
      ["api", ["utils", "server/certs"]],
      ["cmd", "*"],
    ]);
  });

  void it("a forbidden import, a folder without a row, a row without a folder, an import outside src/", () => {
    const files = [
      file("utils/clock.ts", 'import { x } from "../api/x.ts";'),
      file("api/x.ts", 'import { c } from "../utils/clock.ts";\nimport { t } from "../../test/t.ts";\nimport { k } from "../server/certs/k.ts";\nimport { s } from "../server/store.ts";'),
      file("cmd/main.ts", 'import { x } from "../api/x.ts";\nimport { n } from "../newthing/n.ts";'),
      file("newthing/n.ts", ""),
    ];
    assert.deepEqual(layerViolations(files, table, ["utils", "api", "newthing", "server"]), [
      "src/newthing/ has no row in docs/architecture.md's import table",
      "src/server/ has no row in docs/architecture.md's import table",
      "docs/architecture.md lists src/cmd/, which does not exist",
      "utils/clock.ts imports api/x.ts; src/utils/ may import only itself",
      "api/x.ts imports ../test/t.ts (outside src/)",
      "api/x.ts imports server/store.ts; src/api/ may import only utils/, server/certs/",
    ]);
  });

  void it("a cycle, direct or through others, type-only included; none in a chain", () => {
    const cyclic = [
      file("a/handler.ts", 'import { U } from "./upgrade.ts";'),
      file("a/upgrade.ts", 'import type { Deps } from "./handler.ts";'),
      file("b/one.ts", 'import { two } from "./two.ts";'),
      file("b/two.ts", 'import { three } from "./three.ts";'),
      file("b/three.ts", 'import { one } from "./one.ts";'),
      file("c/self.ts", 'import { me } from "./self.ts";'),
    ];
    assert.deepEqual(importCycles(cyclic).map((c) => c.join(" -> ")).sort(), [
      "a/handler.ts -> a/upgrade.ts -> a/handler.ts",
      "b/one.ts -> b/two.ts -> b/three.ts -> b/one.ts",
      "c/self.ts -> c/self.ts",
    ]);
    const chain = [file("a/x.ts", 'import "./y.ts";'), file("a/y.ts", 'import "./z.ts";'), file("a/z.ts", "")];
    assert.deepEqual(importCycles(chain), []);
  });

  void it("a process started outside host/", () => {
    const files = [
      file("cli/run.ts", 'import { spawn } from "node:child_process";'),
      file("nodeagent/users.ts", 'import { execa } from "execa";'),
      file("landscape/old.ts", 'const cp = require("child_process");'),
      file("host/exec.ts", 'import { spawn } from "node:child_process";'),
    ];
    assert.deepEqual(spawnViolations(files), [
      "cli/run.ts imports node:child_process; only src/host/ starts processes",
      "nodeagent/users.ts imports execa; only src/host/ starts processes",
      "landscape/old.ts imports child_process; only src/host/ starts processes",
    ]);
  });

  void it("a hand-written copy of a src/utils/ helper, in either order, but not the helper itself nor other ISO strings", () => {
    const files = [
      { path: "src/a.ts", text: 'const ok = typeof v === "object" && v !== null && !Array.isArray(v);' },
      { path: "src/b.ts", text: 'if (x.spec !== null && typeof x.spec === "object" && !Array.isArray(x.spec)) {}' },
      { path: "src/c.ts", text: 'new Date(ms).toISOString().replace(".000Z", "Z");\nd.toISOString().slice(0, 19);\niso.toISOString().replace(/\\.(\\d{3})Z$/, "");' },
      { path: "src/utils/guards.ts", text: 'return typeof v === "object" && v !== null && !Array.isArray(v);' },
      { path: "src/utils/time.ts", text: 'new Date(second).toISOString().replace(/\\.000Z$/, "Z");' },
      { path: "src/d.ts", text: 'at.toISOString().replace(/:/g, "-");\ntypeof v === "object" && v !== null;\nnew Date().toISOString();' },
    ];
    assert.deepEqual(
      helperCopies(files).map((v) => v.split(" by hand")[0]),
      ["src/a.ts:1 writes isRecord/recordOrEmpty", "src/b.ts:1 writes isRecord/recordOrEmpty", "src/c.ts:1 writes metaTime/microTime/rfc3339Nano", "src/c.ts:2 writes metaTime/microTime/rfc3339Nano", "src/c.ts:3 writes metaTime/microTime/rfc3339Nano"],
    );
  });

  void it("a catch written by hand to let NotFound through, in each shape, but not one that does more", () => {
    const files = [
      { path: "src/a.ts", text: "try {\n  await c.delete(T, k);\n} catch (err) {\n  if (!isNotFound(err)) throw err;\n}" },
      { path: "src/b.ts", text: "x;\ntry {\n  return await c.get(T, k);\n} catch (e: unknown) {\n  if (isNotFound(e)) return undefined;\n  throw e;\n}" },
      { path: "src/c.ts", text: "await c.delete(T, k).catch((err: unknown) => {\n  if (!isNotFound(err)) throw err;\n});" },
      { path: "src/d.ts", text: "const o = await c.get(T, k).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));" },
      { path: "src/e.ts", text: "await c.delete(T, k).catch((err) => (err instanceof StatusError && err.code === 404 ? undefined : Promise.reject(err)));" },
      { path: "src/apimachinery/errors.ts", text: "try {\n  return await p;\n} catch (err) {\n  if (isNotFound(err)) return undefined;\n  throw err;\n}" },
      {
        path: "src/f.ts",
        text: [
          "} catch (err) {\n  if (!isNotFound(err)) throw err;\n  await create();\n}",
          "} catch (err) {\n  if (isNotFound(err)) return [];\n  throw err;\n}",
          "} catch (err) {\n  if (!isNotFound(other)) throw err;\n}",
          "} catch (err) {\n  if (isNotFound(err) || isConflict(err)) return;\n  throw err;\n}",
        ].join("\n"),
      },
    ];
    assert.deepEqual(
      helperCopies(files).map((v) => v.split(" by hand")[0]),
      ["src/a.ts:3 writes unlessNotFound", "src/b.ts:4 writes unlessNotFound", "src/c.ts:1 writes unlessNotFound", "src/d.ts:1 writes unlessNotFound", "src/e.ts:1 writes unlessNotFound"],
    );
  });

  void it("a citation of something a clone does not contain", () => {
    const refs = ["see ../shared/DESIGN.md", "as in spec \u00a74.1", "the shared/spec/bastion.md rules", "docs/bastion.md#admission"];
    assert.deepEqual(
      foreignReferences(refs.map((text, i) => ({ path: `f${i}.ts`, text }))).map((v) => v.split(" cites ")[0]),
      ["f0.ts:1", "f0.ts:1", "f1.ts:1", "f2.ts:1"],
    );
  });

  void it("a citation of a doc or heading that does not exist", () => {
    const docs = new Map([["docs/a.md", "# A\n\n## The gardener-user part\n\n### D4 Client status is dropped on create\n"]]);
    const files = [
      { path: "x.ts", text: "// docs/a.md#the-gardener-user-part and docs/a.md#d4-client-status-is-dropped-on-create" },
      { path: "y.ts", text: "// docs/a.md#no-such-part, docs/b.md, https://example.org/docs/c.md" },
    ];
    assert.deepEqual(brokenDocLinks(files, docs), ["y.ts cites docs/a.md#no-such-part, which has no such heading", "y.ts cites docs/b.md, which does not exist"]);
  });
});
