// The shoot's Nodes (docs/gardenctl-ssh.md#flow step 2, docs/gardenctl-ssh.md#connect-info-mode) and the node SSH keys (docs/gardenctl-ssh.md#flow step 3). Nodes are read with
// a short-lived viewer kubeconfig from `shoots/viewerkubeconfig`; where the garden does not serve
// that subresource or does not allow it (403/404/405), the kubeconfig secret `<shoot>.kubeconfig` in the project namespace
// is used instead.
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { StatusError, unlessNotFound } from "../../../apimachinery/errors.ts";
import { Client, Secrets, resourcePath } from "../../../client/index.ts";
import { CLIError, errorMessage } from "./errors.ts";
import { checkPrivateKey, writePrivate } from "./keys.ts";
import type { Logger } from "./log.ts";
import { checkHost } from "./options.ts";
import { NODE_HOST_KEYS_ANNOTATION, type Node, Nodes, Shoots } from "./resources.ts";

export interface NodeInfo {
  name: string;
  status: "Ready" | "Not Ready" | "Unknown";
  ip: string;
  hostname: string;
  /** Every address of the node (for known_hosts patterns). */
  addresses: string[];
  /** Raw host key lines from the annotation. */
  hostKeys: string[];
}

export async function shootClient(garden: Client, shoot: Shoot): Promise<Client> {
  const ns = shoot.metadata.namespace!;
  const name = shoot.metadata.name!;
  let kubeconfig: string | undefined;
  try {
    const res = await garden.transport.request<{ status?: { kubeconfig?: string } }>({
      method: "POST",
      path: resourcePath(Shoots, ns, name, "viewerkubeconfig"),
      body: { apiVersion: "authentication.gardener.cloud/v1alpha1", kind: "ViewerKubeconfigRequest", spec: { expirationSeconds: 600 } },
    });
    if (res.status?.kubeconfig) kubeconfig = Buffer.from(res.status.kubeconfig, "base64").toString("utf8");
  } catch (err) {
    if (!(err instanceof StatusError) || ![403, 404, 405].includes(err.code)) throw err;
  }
  if (kubeconfig === undefined) {
    const secret = await garden.get(Secrets, { namespace: ns, name: `${name}.kubeconfig` });
    const data = secret.data?.kubeconfig;
    if (!data) throw new CLIError(`no kubeconfig available for shoot ${ns}/${name}`);
    kubeconfig = Buffer.from(data, "base64").toString("utf8");
  }
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return new Client(kc, { userAgent: "gardenctl" });
}

export function nodeInfo(n: Node): NodeInfo {
  const addrs = n.status?.addresses ?? [];
  const first = (t: string): string => addrs.find((a) => a.type === t)?.address ?? "";
  const ready = n.status?.conditions?.find((c) => c.type === "Ready");
  const annotation = n.metadata.annotations?.[NODE_HOST_KEYS_ANNOTATION] ?? "";
  return {
    name: n.metadata.name!,
    status: ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "Not Ready",
    ip: first("InternalIP") || first("ExternalIP"),
    hostname: first("InternalDNS") || first("ExternalDNS"),
    addresses: addrs.filter((a) => a.type !== "Hostname").map((a) => a.address),
    hostKeys: annotation.split("\n"),
  };
}

/** host = InternalIP, else InternalDNS, else ExternalIP, else ExternalDNS (checked with the host rules). */
export function nodeHost(n: Node): string {
  const addrs = n.status?.addresses ?? [];
  for (const type of ["InternalIP", "InternalDNS", "ExternalIP", "ExternalDNS"]) {
    const a = addrs.find((x) => x.type === type)?.address;
    if (a === undefined || a === "") continue;
    const err = checkHost(a);
    if (err) throw new CLIError(`invalid node ${type} address: ${err}`);
    return a;
  }
  throw new CLIError("node has no internal or external names");
}

export async function listNodes(shoot: Client): Promise<NodeInfo[]> {
  try {
    const list = await shoot.list(Nodes);
    return list.items.map(nodeInfo).sort((a, b) => a.name.localeCompare(b.name));
  } catch (err) {
    throw new CLIError(`failed to list shoot cluster nodes: ${errorMessage(err)}`);
  }
}

/** The Node of `name`, or undefined (logged) when it does not exist. */
export async function getNode(shoot: Client, name: string, log: Logger): Promise<Node | undefined> {
  const node = await unlessNotFound(shoot.get(Nodes, { name })).catch((err: unknown) => {
    throw new CLIError(`failed to determine hostname for node: ${errorMessage(err)}`);
  });
  if (!node) log.info("Node not found. Wrong name provided or this node did not yet join the cluster, continuing anyways", { nodeName: name });
  return node;
}

/** Writes node_id_rsa (and node_id_rsa.old) from the garden secrets; returns the written paths, current first. */
export async function writeNodeKeys(garden: Client, namespace: string, shootName: string, dir: string): Promise<string[]> {
  const paths: string[] = [];
  for (const [secretName, file] of [
    [`${shootName}.ssh-keypair`, "node_id_rsa"],
    [`${shootName}.ssh-keypair.old`, "node_id_rsa.old"],
  ] as const) {
    const secret = await unlessNotFound(garden.get(Secrets, { namespace, name: secretName })).catch((err: unknown) => {
      throw new CLIError(`failed to get SSH keypair secret ${namespace}/${secretName}: ${errorMessage(err)}`);
    });
    const data = secret?.data?.id_rsa;
    if (!data) continue;
    const key = Buffer.from(data, "base64").toString("utf8");
    checkPrivateKey(`${namespace}/${secretName}`, key);
    const path = join(dir, file);
    writePrivate(path, key);
    paths.push(path);
  }
  if (paths.length === 0) throw new CLIError("no SSH keypair is available for the shoot nodes");
  return paths;
}
