// The gardenctl configuration of the landscape: garden `local` (the project member's kubeconfig) and
// gardenctl's public-IP command (docs/gardenctl-ssh.md#allowed-cidrs) reporting the host's own address on the public
// network (the veth `up` creates), which is where the user's ssh comes from, so the bastion admits
// exactly this host and no `--cidr` is needed.
// It is written to DIR/gardenctl/gardenctl-v2.yaml (GCTL_HOME=DIR/gardenctl) and, when the user has no
// gardenctl configuration yet, to the default one (<$GCTL_HOME or ~/.garden>/gardenctl-v2.yaml), which
// `down` removes again unless it was changed meanwhile.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import type { Layout } from "./layout.ts";

export const GARDEN_IDENTITY = "local";
const CONFIG_NAME = "gardenctl-v2.yaml";

/** Prints the host's source address towards `gateway` (the public network's): a shell command for gardenctl. */
export function publicIPCommand(gateway: string): string {
  return `ip -4 -o route get ${gateway} | awk '{ for (i = 1; i < NF; i++) if ($i == "src") print $(i + 1) }'`;
}

export function gardenctlConfig(layout: Layout, publicGateway: string): Record<string, unknown> {
  return {
    gardens: [{ identity: GARDEN_IDENTITY, kubeconfig: layout.memberKubeconfig }],
    ssh: { publicIPCommand: publicIPCommand(publicGateway) },
  };
}

export function gardenctlHome(layout: Layout): string {
  return layout.path("gardenctl");
}

export function writeGardenctlConfig(layout: Layout, publicGateway: string): string {
  mkdirSync(gardenctlHome(layout), { recursive: true });
  const path = join(gardenctlHome(layout), CONFIG_NAME);
  writeFileSync(path, stringify(gardenctlConfig(layout, publicGateway)));
  return path;
}

/** gardenctl's default configuration file (docs/gardenctl-ssh.md#configuration-and-target: $GCTL_HOME, else ~/.garden). */
export function defaultGardenctlConfig(env: NodeJS.ProcessEnv): string {
  return join(env.GCTL_HOME || join(env.HOME || homedir(), ".garden"), `${env.GCTL_CONFIG_NAME || "gardenctl-v2"}.yaml`);
}

interface Installed {
  path: string;
  sha256: string;
  createdDir: boolean;
}

const sha256 = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");
const installedRecord = (layout: Layout): string => join(gardenctlHome(layout), "installed.json");

/**
 * Copies the landscape's configuration to gardenctl's default file when there is none; returns a line
 * for the user saying what was done.
 */
export function installGardenctlConfig(layout: Layout, env: NodeJS.ProcessEnv): string {
  const own = join(gardenctlHome(layout), CONFIG_NAME);
  const target = defaultGardenctlConfig(env);
  if (existsSync(target)) {
    return `gardenctl: ${target} exists and is left alone; use GCTL_HOME=${gardenctlHome(layout)} (or --cidr) with \`gardenctl ssh\``;
  }
  const text = readFileSync(own);
  const createdDir = !existsSync(dirname(target));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text, { mode: 0o600 });
  const record: Installed = { path: target, sha256: sha256(text), createdDir };
  writeFileSync(installedRecord(layout), JSON.stringify(record) + "\n");
  return `gardenctl: configured garden ${GARDEN_IDENTITY} in ${target} (removed by \`down\`)`;
}

/** Removes what installGardenctlConfig wrote, unless the user changed it; returns a line, or undefined. */
export function uninstallGardenctlConfig(layout: Layout): string | undefined {
  let record: Installed;
  try {
    record = JSON.parse(readFileSync(installedRecord(layout), "utf8")) as Installed;
  } catch {
    return undefined;
  }
  rmSync(installedRecord(layout), { force: true });
  if (!existsSync(record.path)) return undefined;
  if (sha256(readFileSync(record.path)) !== record.sha256) return `gardenctl: ${record.path} was changed since \`up\`; left as it is`;
  rmSync(record.path);
  if (record.createdDir && readdirSync(dirname(record.path)).length === 0) rmdirSync(dirname(record.path));
  return `gardenctl: removed ${record.path}`;
}
