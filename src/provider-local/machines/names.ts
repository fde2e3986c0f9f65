// Names and owners of the landscape's machines. A machine's name is qualified by the shoot's control-plane
// namespace ("shoot--p--s.bastion-b1"), its owner says what it is ("bastion/shoot--p--s/b1"): the owner
// is how a restarted controller (and a sweep) tells a shoot's bastions and workers apart.
import { createHash } from "node:crypto";

export type MachineKind = "bastion" | "worker";

const NAME_RE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

function hash(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** `<namespace>.<kind>-<name>`, or with a hash of the name when that would be too long for host/. */
export function machineName(kind: MachineKind, namespace: string, name: string): string {
  const full = `${namespace}.${kind}-${name}`;
  return full.length <= 200 && NAME_RE.test(full) ? full : `${namespace.slice(0, 150)}.${kind}-${hash(`${namespace}/${name}`, 16)}`;
}

/** `<kind>-<name>` (a hostname of at most 64 characters; hashed when longer). */
export function machineHostname(kind: MachineKind, name: string): string {
  const full = `${kind}-${name}`;
  return full.length <= 64 && NAME_RE.test(full) ? full : `${kind}-${hash(name, 16)}`;
}

export function machineOwner(kind: MachineKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The owner prefix of one kind of machine of one shoot. */
export function ownerPrefix(kind: MachineKind, namespace: string): string {
  return `${kind}/${namespace}/`;
}
