import assert from "node:assert/strict";
import { test } from "node:test";
import { BenchUsageError, parseBenchArgs } from "./args.ts";

const options = {
  bastions: { type: "string", default: "1000", help: "bastions to create" },
  workers: { type: "string", default: "1,2", help: "worker counts" },
  trace: { type: "boolean", default: false, help: "print each step" },
  storage: { type: "string", default: "sqlite", help: "sqlite or etcd" },
} as const;

test("--help lists every flag with its help and default", () => {
  const parsed = parseBenchArgs("bench/x", "Measures x.", options, ["--help"]);
  assert.equal(parsed.kind, "help");
  if (parsed.kind !== "help") return;
  assert.match(parsed.text, /^usage: bench\/x \[flags\]/);
  assert.match(parsed.text, /Measures x\./);
  assert.match(parsed.text, /--bastions V +bastions to create \(default 1000\)/);
  assert.match(parsed.text, /--trace +print each step$/m);
  assert.match(parsed.text, /-h, --help/);
});

test("an unknown flag is an error that shows the usage", () => {
  const parsed = parseBenchArgs("bench/x", "Measures x.", options, ["--bastion", "3"]);
  assert.equal(parsed.kind, "error");
  if (parsed.kind !== "error") return;
  assert.match(parsed.text, /^bench\/x: .*--bastion/);
  assert.match(parsed.text, /usage: bench\/x/);
});

test("counts are whole numbers at or above the minimum, defaults apply", () => {
  const parsed = parseBenchArgs("bench/x", "", options, ["--bastions", "20", "--trace"]);
  assert.equal(parsed.kind, "ok");
  if (parsed.kind !== "ok") return;
  assert.equal(parsed.args.count("bastions", 1), 20);
  assert.deepEqual(parsed.args.counts("workers", 1), [1, 2]);
  assert.equal(parsed.args.values.trace, true);
  for (const bad of ["x", "1.5", "-1", ""]) {
    const p = parseBenchArgs("bench/x", "", options, [`--bastions=${bad}`, "--workers", `1,${bad}`]);
    assert.equal(p.kind, "ok");
    if (p.kind !== "ok") return;
    assert.throws(() => p.args.count("bastions"), (e: Error) => e instanceof BenchUsageError && e.message.includes(`--bastions "${bad}"`));
    assert.throws(() => p.args.counts("workers"), BenchUsageError);
  }
  const zero = parseBenchArgs("bench/x", "", options, ["--bastions", "0"]);
  assert.ok(zero.kind === "ok");
  assert.throws(() => zero.args.count("bastions", 1), /not a whole number >= 1/);
});

test("a choice is one of its values, anything else is a usage error", () => {
  const ok = parseBenchArgs("bench/x", "", options, ["--storage", "etcd"]);
  assert.ok(ok.kind === "ok");
  assert.equal(ok.args.choice("storage", ["sqlite", "etcd"]), "etcd");
  const bad = parseBenchArgs("bench/x", "", options, ["--storage", "mysql"]);
  assert.ok(bad.kind === "ok");
  assert.throws(() => bad.args.choice("storage", ["sqlite", "etcd"]), (e: Error) => e instanceof BenchUsageError && e.message.startsWith('bench/x: --storage "mysql" is not one of sqlite, etcd'));
});
