// Host and target selection (docs/dashboard.md#host-and-target-selection): which cluster runs a
// Terminal's pod, which cluster its kubeconfig reaches and with what rights, by target (`garden`,
// `shoot`, `cp`) and by whether the user is an operator. The lookups (shoot, ManagedSeed, CA) are
// made as the user; the garden's admission webhooks then decide whether the user may use them.
import type { ClusterCredentials, TerminalSpec } from "../../apis/dashboard/v1alpha1/types.ts";
import type { Shoot } from "../../apis/gardencore/v1beta1/types.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import { ConfigMaps, Secrets } from "../../client/builtins.ts";
import { inlineKubeConfig } from "../../client/inline-kubeconfig.ts";
import type { Client } from "../../client/client.ts";
import { unlessNotFound } from "../../client/helpers.ts";
import { resourceType } from "../../client/resource.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { TerminalConfig } from "./config.ts";

export type TargetKind = "garden" | "shoot" | "cp";
export const WEBTERMINAL_SA = "dashboard-webterminal";
/** The project of a project namespace (`garden-<project>`). */
export const projectOf = (namespace: string): string => namespace.replace(/^garden-/, "");

const ManagedSeeds = resourceType<KubeObject & { spec?: { shoot?: { name?: string } } }>({ group: "seedmanagement.gardener.cloud", version: "v1alpha1", kind: "ManagedSeed", plural: "managedseeds", namespaced: true });

export interface CreateParams {
  coordinate: { namespace: string; name?: string; target: TargetKind };
  identifier: string;
  preferredHost?: "seed" | "shoot";
  node?: string;
  hostPID?: boolean;
  hostNetwork?: boolean;
  container?: { image?: string; command?: string[]; args?: string[]; privileged?: boolean };
}

const ALLOWED = ["to-dns", "to-public-networks", "to-private-networks"].map((l) => `networking.gardener.cloud/${l}`);
const SHOOT_LABELS = Object.fromEntries([...ALLOWED, "networking.gardener.cloud/to-shoot-networks", "networking.resources.gardener.cloud/to-kube-apiserver-tcp-443"].map((l) => [l, "allowed"]));
const CP_LABELS = Object.fromEntries([...ALLOWED, "networking.gardener.cloud/to-runtime-apiserver"].map((l) => [l, "allowed"]));
const forbidden = (message: string) => new StatusError(403, "Forbidden", message);

/** What hosts terminals on a seed, and the CA of its API server (base64 PEM) when known. */
interface SeedHost {
  credentials: ClusterCredentials;
  caData?: string;
}

/**
 * A seed hosts terminals as a ManagedSeed (its shoot in `garden`), or, for a seed that is not one, through
 * the kubeconfig Secret `terminal.seedHosts[<seed>]` names; its CA is read from that Secret as the user.
 */
async function seedHost(user: Client, cfg: TerminalConfig, seed: string | undefined): Promise<SeedHost> {
  if (!seed) throw new StatusError(422, "Invalid", "terminal cannot be hosted on non-managed seed");
  const ms = await unlessNotFound(user.get(ManagedSeeds, { namespace: "garden", name: seed })).catch(() => undefined);
  const name = ms?.spec?.shoot?.name;
  if (name) return { credentials: { shootRef: { namespace: "garden", name } }, caData: await caData(user, "garden", name) };
  const secretRef = cfg.seedHosts?.[seed]?.secretRef;
  if (!secretRef) throw new StatusError(422, "Invalid", "terminal cannot be hosted on non-managed seed");
  return { credentials: { secretRef }, caData: await kubeconfigCaData(user, secretRef) };
}

/** The CA of the Secret's kubeconfig (base64 PEM), read as the user; undefined when they may not read it (the webhook then refuses). */
async function kubeconfigCaData(user: Client, ref: { namespace: string; name: string }): Promise<string | undefined> {
  const secret = await user.get(Secrets, ref).catch(() => undefined);
  const text = secret?.data?.kubeconfig;
  if (!text) return undefined;
  try {
    return inlineKubeConfig(Buffer.from(text, "base64").toString("utf8"), `secret ${ref.namespace}/${ref.name}`).getCurrentCluster()?.caData || undefined;
  } catch {
    return undefined;
  }
}

async function caData(user: Client, namespace: string, shoot: string): Promise<string | undefined> {
  const cm = await unlessNotFound(user.get(ConfigMaps, { namespace, name: `${shoot}.ca-cluster` })).catch(() => undefined);
  const pem = cm?.data?.["ca.crt"];
  return pem ? Buffer.from(pem).toString("base64") : undefined;
}

function pod(p: CreateParams, image: string, full: boolean, labels: Record<string, string>): TerminalSpec["host"]["pod"] {
  const c = p.container ?? {};
  const container = { image, ...(c.command ? { command: c.command } : {}), ...(c.args ? { args: c.args } : {}) };
  if (!full) return { labels, container };
  return {
    labels,
    container: { ...container, ...(c.privileged ? { privileged: true } : {}) },
    ...(p.node ? { nodeSelector: { "kubernetes.io/hostname": p.node } } : {}),
    ...(p.hostPID ? { hostPID: true } : {}),
    ...(p.hostNetwork ? { hostNetwork: true } : {}),
  };
}

/** The spec of a new Terminal (without identifier: the webhook assigns it). */
export async function terminalSpec(user: Client, cfg: TerminalConfig, p: CreateParams, isAdmin: boolean, shoot: Shoot | undefined, preferredHost: "seed" | "shoot", image: string): Promise<Omit<TerminalSpec, "identifier">> {
  const { namespace, target } = p.coordinate;
  const gardenApi = { server: cfg.gardenApiServerUrl, ...(cfg.garden.caPem ? { caData: Buffer.from(cfg.garden.caPem).toString("base64") } : {}) };
  if (target === "garden") {
    if (isAdmin) {
      const h = cfg.gardenTerminalHost;
      const hostCredentials: ClusterCredentials | undefined = h?.seedRef ? (await seedHost(user, cfg, h.seedRef.name)).credentials : h?.shootRef ? { shootRef: { namespace: h.shootRef.namespace || "garden", name: h.shootRef.name } } : undefined;
      if (!hostCredentials) throw new StatusError(422, "Invalid", "no host is configured for garden terminals (terminal.gardenTerminalHost)");
      return {
        host: { credentials: hostCredentials, temporaryNamespace: true, pod: pod(p, image, false, {}) },
        target: { credentials: cfg.operatorCredentials, namespace: "garden", kubeconfigContextNamespace: namespace, apiServer: gardenApi, authorization: { roleBindings: cfg.operatorRoleBindings } },
      };
    }
    if (!p.coordinate.name) throw new StatusError(422, "Invalid", "a garden terminal of a project member runs on one of the project's shoots: coordinate.name is required");
    return {
      host: { credentials: { shootRef: { namespace, name: p.coordinate.name } }, temporaryNamespace: true, pod: pod(p, image, true, {}) },
      target: {
        credentials: { serviceAccountRef: { namespace, name: WEBTERMINAL_SA } },
        namespace,
        kubeconfigContextNamespace: namespace,
        apiServer: gardenApi,
        authorization: { projectMemberships: [{ projectName: projectOf(namespace), roles: ["admin"] }] },
        cleanupProjectMembership: true,
      },
    };
  }
  if (!shoot || !p.coordinate.name) throw new StatusError(422, "Invalid", "coordinate.name must name a shoot");
  const shootRef = { namespace, name: p.coordinate.name };
  if (target === "cp") {
    if (!isAdmin) throw forbidden("Terminal usage is not allowed");
    const seed = await seedHost(user, cfg, shoot.spec?.seedName);
    const technicalID = shoot.status?.technicalID ?? "";
    return {
      host: { credentials: seed.credentials, namespace: technicalID, pod: pod(p, image, false, CP_LABELS) },
      target: {
        credentials: seed.credentials,
        namespace: technicalID,
        kubeconfigContextNamespace: technicalID,
        apiServer: { caData: seed.caData },
        authorization: { roleBindings: [{ nameSuffix: "", bindingKind: "RoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } }] },
      },
    };
  }
  const onSeed = isAdmin && preferredHost === "seed";
  const host: TerminalSpec["host"] = onSeed
    ? { credentials: (await seedHost(user, cfg, shoot.spec?.seedName)).credentials, namespace: shoot.status?.technicalID, pod: pod(p, image, false, SHOOT_LABELS) }
    : { credentials: { shootRef }, temporaryNamespace: true, pod: pod(p, image, true, SHOOT_LABELS) };
  return {
    host,
    target: {
      credentials: { shootRef },
      temporaryNamespace: true,
      kubeconfigContextNamespace: "default",
      apiServer: { serviceRef: onSeed ? { name: "kube-apiserver", namespace: host.namespace } : { name: "kubernetes", namespace: "default" }, caData: await caData(user, namespace, shootRef.name) },
      authorization: { roleBindings: [{ nameSuffix: "", bindingKind: "ClusterRoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } }] },
    },
  };
}
