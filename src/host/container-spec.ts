// The spec of a container's first program, container-init (shim/container-init.c): the operations that build
// the container's root in its own mount namespace only, so nothing of it stays behind when the last process
// exits (a tmpfs root, an overlay of each top-level directory of the node's root over a tmpfs whose writes
// are discarded with the container, the node's private directories covered empty, the node's /usr
// read-only, its own proc, sys, dev and run, the pod's files and volumes), then pivot_root, the hostname,
// the working directory, capabilities and the command with its environment. One process does all of it: a
// container's start used to be some fifty processes of a shell script. The spec is NUL-separated words, so
// nothing in it is parsed by a shell.

/** Docker's default capability set, given to containers that are not privileged. */
export const DEFAULT_CAPABILITIES = [
  "chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid",
  "setfcap", "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write",
] as const;

export interface ContainerMount {
  /** A path of the node (the machine). */
  source: string;
  /** Absolute path inside the container. */
  target: string;
  readOnly?: boolean;
  /** Bind with submounts (hostPath). */
  recursive?: boolean;
}

export interface ContainerSetupSpec {
  /** The container's directory (root and layers are mounted and the started marker is written here). */
  dir: string;
  hostname: string;
  privileged: boolean;
  mounts: readonly ContainerMount[];
  command: readonly string[];
  env: readonly (readonly [string, string])[];
  workingDir?: string;
  /** Size of each tmpfs holding the writable layers (default "1g"). */
  rootSize?: string;
  /** Directories of the node the container must not see (its agent's credentials and state): each is covered by an empty tmpfs. */
  hide?: readonly string[];
}

function absolute(what: string, p: string): string {
  if (!p.startsWith("/") || p.split("/").includes("..")) throw new Error(`${what} ${p} must be absolute`);
  return p;
}

/** The operations of container-init, in order (see shim/container-init.c for each). */
export function containerOps(spec: ContainerSetupSpec): string[][] {
  const size = spec.rootSize ?? "1g";
  if (!/^[0-9]+[kmg]?$/.test(size)) throw new Error(`invalid root size ${size}`);
  if (spec.command.length === 0) throw new Error("a container needs a command");
  const ops: string[][] = [["root", absolute("container directory", spec.dir), size], ["system", spec.privileged ? "1" : "0"]];
  for (const h of spec.hide ?? []) ops.push(["hide", absolute("hidden path", h)]);
  for (const m of spec.mounts) {
    absolute("mount target", m.target);
    ops.push(["bind", m.source, m.target, `${m.recursive ? "r" : ""}${m.readOnly ? "o" : ""}` || "-"]);
  }
  ops.push(["hostname", spec.hostname], ["pivot"]);
  if (spec.workingDir) ops.push(["workdir", absolute("working directory", spec.workingDir)]);
  ops.push(["started"]);
  if (!spec.privileged) ops.push(["caps", DEFAULT_CAPABILITIES.join(",")]);
  for (const [k, v] of spec.env) {
    if (k === "" || k.includes("=") || k.includes("\0")) throw new Error(`invalid environment variable name ${JSON.stringify(k)}`);
    ops.push(["env", `${k}=${v}`]);
  }
  ops.push(["exec", String(spec.command.length), ...spec.command]);
  return ops;
}

/** The spec file's content: every word NUL-terminated; a NUL inside a word is refused. */
export function renderContainerSpec(spec: ContainerSetupSpec): Buffer {
  const words = containerOps(spec).flat();
  for (const w of words) if (w.includes("\0")) throw new Error(`a container's setup cannot hold a NUL character: ${JSON.stringify(w.slice(0, 80))}`);
  return Buffer.from(words.map((w) => `${w}\0`).join(""), "utf8");
}

/** The setpriv and env prefix an exec in a container runs through (same capabilities and environment). */
export function execPrefix(privileged: boolean, env: readonly (readonly [string, string])[]): string[] {
  const caps = privileged ? [] : ["setpriv", `--bounding-set=-all,${DEFAULT_CAPABILITIES.map((c) => `+${c}`).join(",")}`, "--no-new-privs", "--"];
  return [...caps, "env", "-i", ...env.map(([k, v]) => `${k}=${v}`)];
}
