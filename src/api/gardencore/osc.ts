// The node configuration (OperatingSystemConfig, docs/maintenance-and-rotation.md#node-configuration): names, labels and
// annotations shared by the gardenlet and the node agent, the deterministic rendering of `osc.yaml`
// and its checksum. Pure: no I/O.
import { createHash } from "node:crypto";
import { parse, stringify } from "yaml";
import type { Shoot, Worker } from "../../apis/gardencore/v1beta1/types.ts";

export const OSC_NAMESPACE = "kube-system";
export const OSC_DATA_KEY = "osc.yaml";
export const OSC_NAME_PREFIX = "gardener-node-agent-";
export const LABEL_ROLE = "gardener.cloud/role";
export const ROLE_OSC = "operating-system-config";
export const ROLE_SSH_KEYPAIR = "ssh-keypair";
export const LABEL_WORKER_POOL = "worker.gardener.cloud/pool";
export const LABEL_NODE_AGENT_SECRET_NAME = "worker.gardener.cloud/gardener-node-agent-secret-name";
/** On the OSC Secret: SHA-256 (lower-case hex) of its `osc.yaml`. */
export const ANNOTATION_CHECKSUM_DATA_SCRIPT = "checksum/data-script";
/** On the Node: the `checksum/data-script` of the OSC the node agent last applied successfully. */
export const ANNOTATION_CHECKSUM_CLOUD_CONFIG = "checksum/cloud-config-data";
/** On the Node: the node's SSH host keys, one `<type> <base64>` per line, sorted. */
export const ANNOTATION_SSH_HOST_KEYS = "node.gardener.cloud/ssh-host-keys";

/** The `gardener-user` part's file: the authorized keys (current first, then old). */
export const AUTHORIZED_KEYS_FILE = "/var/lib/gardener-user-authorized-keys";
/** 0644 */
export const AUTHORIZED_KEYS_PERMISSIONS = 0o644;

export interface OSCFile {
  path: string;
  /** Numeric mode (0644 is 420), as Gardener's API serialises it. */
  permissions: number;
  content: { inline: { encoding: "b64"; data: string } };
}

export interface OSCUnit {
  name: string;
  enable?: boolean;
  content?: string;
}

export interface OperatingSystemConfig {
  apiVersion: "extensions.gardener.cloud/v1alpha1";
  kind: "OperatingSystemConfig";
  spec: { files: OSCFile[]; units: OSCUnit[] };
}

export interface OSCInput {
  /**
   * The public keys (`id_rsa.pub` of `ssh-keypair`, then of `ssh-keypair.old`); undefined when SSH
   * access is disabled, which removes the `gardener-user` part.
   */
  authorizedKeys?: string[];
}

/** The OSC object for a pool; files sorted by path so the rendering never depends on insertion order. */
export function buildOSC(input: OSCInput): OperatingSystemConfig {
  const files: OSCFile[] = [];
  if (input.authorizedKeys !== undefined) {
    const data = Buffer.from(input.authorizedKeys.join("\n"), "utf8").toString("base64");
    files.push({ path: AUTHORIZED_KEYS_FILE, permissions: AUTHORIZED_KEYS_PERMISSIONS, content: { inline: { encoding: "b64", data } } });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { apiVersion: "extensions.gardener.cloud/v1alpha1", kind: "OperatingSystemConfig", spec: { files, units: [] } };
}

/** `osc.yaml`: the same input always gives the same bytes (fixed key order, no line folding). */
export function renderOSC(input: OSCInput): string {
  return stringify(buildOSC(input), { lineWidth: 0, sortMapEntries: false });
}

/** Lower-case hex SHA-256 of the bytes (the `checksum/data-script` of `osc.yaml`). */
export function checksumOf(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

export class OSCError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OSCError";
  }
}

/** Parses `osc.yaml`; throws OSCError when it is not an OperatingSystemConfig with well-formed files. */
export function parseOSC(text: string): OperatingSystemConfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new OSCError(`osc.yaml is not valid YAML: ${(err as Error).message}`);
  }
  const o = doc as Partial<OperatingSystemConfig> | null;
  if (!o || o.kind !== "OperatingSystemConfig" || typeof o.spec !== "object" || o.spec === null) throw new OSCError("osc.yaml is not an OperatingSystemConfig");
  const files = Array.isArray(o.spec.files) ? o.spec.files : [];
  for (const f of files) {
    const ok =
      typeof f?.path === "string" &&
      f.path.startsWith("/") &&
      typeof f.permissions === "number" &&
      f.content?.inline?.encoding === "b64" &&
      typeof f.content.inline.data === "string";
    if (!ok) throw new OSCError(`osc.yaml has a malformed file entry ${JSON.stringify(f?.path ?? null)}`);
  }
  return { apiVersion: "extensions.gardener.cloud/v1alpha1", kind: "OperatingSystemConfig", spec: { files, units: Array.isArray(o.spec.units) ? o.spec.units : [] } };
}

/** The decoded content of a file of the OSC, or undefined when the OSC has no such file. */
export function fileContent(osc: OperatingSystemConfig, path: string): string | undefined {
  const f = osc.spec.files.find((x) => x.path === path);
  return f ? Buffer.from(f.content.inline.data, "base64").toString("utf8") : undefined;
}

/**
 * `gardener-node-agent-<pool>-<hash>`: the hash stands for the pool's machine generation (the
 * worker's machine type and image and the Kubernetes version) and never for SSH keys or SSH access,
 * so neither rotation nor toggling SSH replaces machines.
 */
export function oscSecretName(pool: string, machineGeneration: unknown): string {
  return `${OSC_NAME_PREFIX}${pool}-${checksumOf(stableJSON(machineGeneration)).slice(0, 8)}`;
}

/** What a pool's machines are: the hash in the OSC Secret's name (never the keys, never SSH access). */
export function machineGeneration(shoot: Shoot, worker: Worker): unknown {
  return { machine: worker.machine ?? null, kubernetesVersion: shoot.spec.kubernetes?.version ?? null };
}

/** The name of a pool's OSC Secret (what the gardenlet writes and a node agent's `--secret-name`). */
export function oscSecretNameOf(shoot: Shoot, worker: Worker): string {
  return oscSecretName(worker.name, machineGeneration(shoot, worker));
}

/** JSON with object keys sorted, so equal values hash equally. */
export function stableJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJSON).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJSON(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}
