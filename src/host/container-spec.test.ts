import assert from "node:assert/strict";
import { test } from "node:test";
import { containerOps, renderContainerSpec } from "./container-spec.ts";

const base = { dir: "/d", hostname: "h", privileged: false, mounts: [{ source: "/v", target: "/var/lib/gardener-node-agent/x" }], command: ["sh"], env: [] };
const index = (ops: string[][], ...op: string[]) => ops.findIndex((o) => JSON.stringify(o) === JSON.stringify(op));

test("hidden node directories are covered by an empty tmpfs before the pod's own mounts, all before pivot_root", () => {
  const ops = containerOps({ ...base, hide: ["/etc/gardener-node-agent", "/var/lib/gardener-node-agent"] });
  const cover = index(ops, "hide", "/var/lib/gardener-node-agent");
  assert.ok(cover > 0, JSON.stringify(ops));
  assert.ok(index(ops, "hide", "/etc/gardener-node-agent") > 0);
  assert.ok(cover < index(ops, "bind", "/v", "/var/lib/gardener-node-agent/x", "-"), "a volume inside a hidden directory is still mounted");
  assert.ok(cover < index(ops, "pivot"));
});

test("a hidden path, a mount target and the working directory must be absolute and without ..", () => {
  for (const h of ["etc", "/etc/../root"]) assert.throws(() => containerOps({ ...base, hide: [h] }), /must be absolute/);
  assert.throws(() => containerOps({ ...base, mounts: [{ source: "/v", target: "x" }] }), /must be absolute/);
  assert.throws(() => containerOps({ ...base, workingDir: "/a/../b" }), /must be absolute/);
  assert.equal(containerOps(base).filter((o) => o[0] === "hide").length, 0);
});

test("an unprivileged container keeps Docker's capabilities; a privileged one all of them", () => {
  const caps = containerOps(base).find((o) => o[0] === "caps");
  assert.deepEqual(caps?.[1]?.split(",").sort(), ["audit_write", "chown", "dac_override", "fowner", "fsetid", "kill", "mknod", "net_bind_service", "net_raw", "setfcap", "setgid", "setpcap", "setuid", "sys_chroot"]);
  assert.equal(containerOps({ ...base, privileged: true }).find((o) => o[0] === "caps"), undefined);
  assert.deepEqual(index(containerOps({ ...base, privileged: true }), "system", "1"), 1);
});

test("bind flags, environment and the command are words of their own, the command last", () => {
  const ops = containerOps({
    ...base,
    mounts: [{ source: "/h", target: "/h", recursive: true, readOnly: true }, { source: "/s", target: "/s", readOnly: true }],
    env: [["A", "x y'$(z)"], ["B", ""]],
    command: ["sh", "-c", "echo $A; exit 3"],
    workingDir: "/w",
  });
  assert.ok(index(ops, "bind", "/h", "/h", "ro") > 0 && index(ops, "bind", "/s", "/s", "o") > 0);
  assert.ok(index(ops, "env", "A=x y'$(z)") > 0 && index(ops, "env", "B=") > 0);
  assert.ok(index(ops, "pivot") < index(ops, "workdir", "/w") && index(ops, "workdir", "/w") < index(ops, "started"));
  assert.deepEqual(ops.at(-1), ["exec", "3", "sh", "-c", "echo $A; exit 3"]);
});

test("the file is NUL-terminated words; a NUL inside a word, a bad variable name or no command is refused", () => {
  const buf = renderContainerSpec(base);
  assert.equal(buf.at(-1), 0);
  const words = buf.toString("utf8").split("\0").slice(0, -1);
  assert.deepEqual(words.slice(0, 3), ["root", "/d", "1g"]);
  assert.deepEqual(words.slice(-3), ["exec", "1", "sh"]);
  assert.throws(() => renderContainerSpec({ ...base, command: ["a\0b"] }), /NUL/);
  assert.throws(() => renderContainerSpec({ ...base, env: [["A=B", "x"]] }), /invalid environment variable name/);
  assert.throws(() => renderContainerSpec({ ...base, command: [] }), /needs a command/);
  assert.throws(() => renderContainerSpec({ ...base, rootSize: "1g,exec" }), /invalid root size/);
});
