// The garden objects the gardenlet's VPN tests start from: seed `a`, project `p` and its shoot `s` with Gardener's
// default networks and technical ID `shoot--p--s`, whose control-plane and kube-system namespaces exist on `seed`.
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/client.ts";
import { Projects, Seeds, Shoots } from "../../../src/client/garden.ts";

export const NS = "garden-p";
export const CP = "shoot--p--s";
export const KEY = { namespace: NS, name: "s" };

export async function registerShoot(garden: Client, seed: Client): Promise<void> {
  await garden.create(Seeds, { metadata: { name: "a" }, spec: { networks: { nodes: "10.10.0.0/16", pods: "10.20.0.0/16", services: "10.30.0.0/16" } } });
  await garden.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS, owner: { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" } } });
  await garden.create(Namespaces, { metadata: { name: NS } }).catch(() => undefined);
  await seed.create(Namespaces, { metadata: { name: CP } });
  await seed.create(Namespaces, { metadata: { name: "kube-system" } }).catch(() => undefined);
  await garden.create(Shoots, {
    metadata: { ...KEY },
    spec: { seedName: "a", provider: { type: "local", workers: [{ name: "w", minimum: 1, maximum: 1 }] }, kubernetes: { version: "1.31.1" }, networking: { nodes: "10.250.0.0/16", pods: "100.96.0.0/11", services: "100.64.0.0/13" } },
  } as Shoot);
  await garden.patchStatus(Shoots, KEY, { type: "merge", body: { status: { technicalID: CP } } });
}
