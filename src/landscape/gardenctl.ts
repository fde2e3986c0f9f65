// The gardenctl configuration of the landscape (DIR/gardenctl/gardenctl-v2.yaml, use with
// GCTL_HOME=DIR/gardenctl): garden `local` as the project member, and the "local" public-IP strategy
// towards the public network, where the host's own address (the veth `up` creates) is the user's
// address, so the bastion admits exactly this host.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { Layout } from "./layout.ts";

export const GARDEN_IDENTITY = "local";

export function gardenctlConfig(layout: Layout, publicCidr: string): Record<string, unknown> {
  return {
    gardens: [{ identity: GARDEN_IDENTITY, kubeconfig: layout.memberKubeconfig }],
    ssh: { publicIPStrategy: "local", localBastionNetwork: publicCidr },
  };
}

export function gardenctlHome(layout: Layout): string {
  return layout.path("gardenctl");
}

export function writeGardenctlConfig(layout: Layout, publicCidr: string): string {
  mkdirSync(gardenctlHome(layout), { recursive: true });
  const path = join(gardenctlHome(layout), "gardenctl-v2.yaml");
  writeFileSync(path, stringify(gardenctlConfig(layout, publicCidr)));
  return path;
}
