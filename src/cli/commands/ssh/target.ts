// Target resolution (docs/gardenctl-ssh.md#configuration-and-target): the garden client (--kubeconfig, else the gardenctl config entry),
// the project namespace and the Shoot.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { parse as parseYaml } from "yaml";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { Client } from "../../../client/index.ts";
import { isForbidden } from "../../../apimachinery/errors.ts";
import { CLIError, errorMessage } from "./errors.ts";
import type { SSHOptions } from "./options.ts";
import { Projects, Shoots } from "./resources.ts";

export interface GardenEntry {
  identity: string;
  kubeconfig?: string;
  context?: string;
  accessRestrictions?: unknown[];
}

export interface GardenctlConfig {
  gardens?: GardenEntry[];
  ssh?: { publicIPCommand?: string };
}

export interface Target {
  client: Client;
  gardenName: string;
  namespace: string;
  /** Project name, or the seed for seed-only targets. */
  scope: string;
  shoot: Shoot;
}

export function gardenHome(env: NodeJS.ProcessEnv): string {
  return env.GCTL_HOME || join(homedir(), ".garden");
}

function expand(path: string, env: NodeJS.ProcessEnv): string {
  return path.replace(/^~(?=$|\/)/, homedir()).replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, name: string) => env[name] ?? "");
}

/** Reads the config file; absent is fine only when --kubeconfig is given (or nothing needs it). */
export function loadConfig(o: Pick<SSHOptions, "config">, env: NodeJS.ProcessEnv): GardenctlConfig {
  const path = o.config ?? join(gardenHome(env), `${env.GCTL_CONFIG_NAME || "gardenctl-v2"}.yaml`);
  if (!existsSync(path)) {
    if (o.config !== undefined) throw new CLIError(`failed to read config file ${JSON.stringify(path)}: file does not exist`);
    return {};
  }
  try {
    return (parseYaml(readFileSync(path, "utf8")) ?? {}) as GardenctlConfig;
  } catch (err) {
    throw new CLIError(`failed to read config file ${JSON.stringify(path)}: ${errorMessage(err)}`);
  }
}

export function gardenClient(o: SSHOptions, config: GardenctlConfig, env: NodeJS.ProcessEnv): { client: Client; gardenName: string } {
  let entry: GardenEntry | undefined;
  const gardens = config.gardens ?? [];
  if (o.garden !== undefined) {
    entry = gardens.find((g) => g.identity === o.garden);
    if (!entry && o.kubeconfig === undefined) throw new CLIError(`garden ${JSON.stringify(o.garden)} is not defined in the gardenctl configuration`);
  } else if (gardens.length === 1) {
    entry = gardens[0];
  }
  const path = o.kubeconfig ?? (entry?.kubeconfig ? expand(entry.kubeconfig, env) : undefined);
  if (path === undefined) throw new CLIError("no garden targeted");
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (err) {
    throw new CLIError(`failed to load garden kubeconfig ${JSON.stringify(path)}: ${errorMessage(err)}`);
  }
  if (entry?.context) kc.setCurrentContext(entry.context);
  return { client: new Client(kc, { fieldManager: "gardenctl", userAgent: "gardenctl" }), gardenName: o.garden ?? kc.getCurrentContext() };
}

/**
 * Project spec.namespace. Members without read access to the cluster-scoped Project (Forbidden)
 * use the conventional `garden-<project>`; access checks then happen on the namespaced reads.
 */
async function projectNamespace(client: Client, project: string): Promise<string> {
  try {
    const p = await client.get(Projects, { name: project });
    if (!p.spec?.namespace) throw new CLIError(`project ${JSON.stringify(project)} has no namespace`);
    return p.spec.namespace;
  } catch (err) {
    if (isForbidden(err)) return `garden-${project}`;
    throw err;
  }
}

export async function resolveTarget(o: SSHOptions, client: Client, gardenName: string): Promise<Target> {
  if (o.shoot === undefined) throw new CLIError("no shoot targeted");
  if (o.project !== undefined) {
    const namespace = await projectNamespace(client, o.project);
    const shoot = await client.get(Shoots, { namespace, name: o.shoot });
    return { client, gardenName, namespace, scope: o.project, shoot };
  }
  const list = await client.list(Shoots, { fieldSelector: `metadata.name=${o.shoot}`, limit: 2 });
  const items = list.items.filter((s) => o.seed === undefined || s.spec.seedName === o.seed);
  const what = `name=${o.shoot}${o.seed ? `, seed=${o.seed}` : ""}`;
  if (items.length === 0) throw new CLIError(`no shoot found matching the given list options (${what})`);
  if (items.length > 1) throw new CLIError(`multiple shoots found matching the given list options (${what}), please target a project or seed to make your choice unambiguous`);
  const shoot = items[0]!;
  return { client, gardenName, namespace: shoot.metadata.namespace!, scope: o.seed ?? shoot.metadata.namespace!, shoot };
}
