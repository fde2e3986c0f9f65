// Where pods/proxy, nodes/proxy and services/proxy send a request (kube-apiserver's ResourceLocation of
// pkg/registry/core/{pod,node,service}): the name in the URL is `name`, `name:port` or
// `scheme:name:port`; the address comes from stored state (the pod's IP, the node's InternalIP, an
// address of the Service's Endpoints), never from the request. Addresses the API server must not reach
// on a user's behalf (loopback, link-local, unspecified, multicast) are refused with "address not allowed".
import { BlockList, isIP } from "node:net";
import type { Node } from "../../../../apis/core/v1/types.ts";
import type { Pod } from "../../../../apis/core/v1/pod.ts";
import type { Endpoints, Service } from "../../../../apis/core/v1/service.ts";
import { newBadRequest, newNotFound, newServiceUnavailable } from "../../../../apimachinery/errors.ts";
import type { InternalClient } from "../../client.ts";
import { ENDPOINTS, NODES, PODS, SERVICES } from "../resources.ts";

export interface ProxyLocation {
  scheme: "http" | "https";
  host: string;
  port: number;
  /** https to a node's kubelet port: mutual TLS with the kubelet-client certificate, the kubelet verified. */
  kubelet?: boolean;
}

const DEFAULT_KUBELET_PORT = 10250;

/** utilnet.SplitSchemeNamePort: undefined when invalid (too many parts, empty name, unknown scheme). */
export function splitSchemeNamePort(id: string): { scheme: "" | "http" | "https"; name: string; port: string } | undefined {
  const parts = id.split(":");
  let scheme = "";
  let name: string;
  let port = "";
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (name === "" || (scheme !== "" && scheme !== "http" && scheme !== "https")) return undefined;
  return { scheme: scheme as "" | "http" | "https", name, port };
}

/** Loopback, link-local, unspecified, multicast and broadcast: never proxied to (Go's !IsGlobalUnicast). */
const NOT_ALLOWED = new BlockList();
for (const [net, prefix] of [["0.0.0.0", 8], ["127.0.0.0", 8], ["169.254.0.0", 16], ["224.0.0.0", 4], ["255.255.255.255", 32]] as const) NOT_ALLOWED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [["::", 128], ["::1", 128], ["fe80::", 10], ["ff00::", 8]] as const) NOT_ALLOWED.addSubnet(net, prefix, "ipv6");

/** The address must be an IP the proxy may reach; 400 "address not allowed" otherwise (as kube-apiserver). */
export function checkAddress(host: string | undefined): string {
  const family = host ? isIP(host) : 0;
  if (!host || family === 0 || NOT_ALLOWED.check(host, family === 4 ? "ipv4" : "ipv6")) throw newBadRequest("address not allowed");
  return host;
}

function portNumber(port: string, what: string): number {
  const n = /^\d{1,5}$/.test(port) ? Number(port) : 0;
  if (n < 1 || n > 65535) throw newBadRequest(`invalid ${what} request: port ${JSON.stringify(port.slice(0, 32))} is not a number between 1 and 65535`);
  return n;
}

function parse(id: string, what: string) {
  const p = splitSchemeNamePort(id);
  if (!p) throw newBadRequest(`invalid ${what} request ${JSON.stringify(id.slice(0, 300))}`);
  return p;
}

/** pods/proxy: the pod's IP; without a port the first declared container port, else 80 (http) or 443 (https). */
export async function podLocation(client: InternalClient, namespace: string, id: string): Promise<ProxyLocation> {
  const { scheme, name, port } = parse(id, "pod");
  const pod = (await client.get(PODS, namespace, name, { readOnly: true })) as Pod | undefined;
  if (!pod) throw newNotFound(PODS, name);
  let portText = port;
  if (portText === "") portText = String((pod.spec?.containers ?? []).find((c) => c.ports?.length)?.ports?.[0]?.containerPort ?? "");
  const host = checkAddress(pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP);
  const s = scheme || "http";
  return { scheme: s, host, port: portText === "" ? (s === "https" ? 443 : 80) : portNumber(portText, "pod") };
}

/** nodes/proxy: the kubelet (its port, or none given) over mutual TLS, or another port of the node's InternalIP. */
export async function nodeLocation(client: InternalClient, id: string): Promise<ProxyLocation> {
  const { scheme, name, port } = parse(id, "node");
  const node = (await client.get(NODES, undefined, name, { readOnly: true })) as Node | undefined;
  if (!node) throw newNotFound(NODES, name);
  const internal = node.status?.addresses?.find((a) => a.type === "InternalIP" && isIP(a.address) !== 0)?.address;
  if (!internal) throw newServiceUnavailable(`node "${name}" has no InternalIP address`);
  const host = checkAddress(internal);
  const stored = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  const kubeletPort = stored && stored > 0 && stored < 65536 ? stored : DEFAULT_KUBELET_PORT;
  if (port === "" || port === String(kubeletPort)) return { scheme: "https", host, port: kubeletPort, kubelet: true };
  return { scheme: scheme || "http", host, port: portNumber(port, "node") };
}

/** services/proxy: a ready address of the Service's Endpoints on the named (or numbered) service port. */
export async function serviceLocation(client: InternalClient, namespace: string, id: string, random: () => number = Math.random): Promise<ProxyLocation> {
  const { scheme, name, port } = parse(id, "service");
  let portName = port;
  if (/^\d+$/.test(port)) {
    const svc = (await client.get(SERVICES, namespace, name, { readOnly: true })) as Service | undefined;
    if (!svc) throw newNotFound(SERVICES, name);
    const sp = (svc.spec?.ports ?? []).find((p) => p.port === Number(port));
    if (!sp) throw newServiceUnavailable(`no service port ${port} found for service "${name}"`);
    portName = sp.name ?? "";
  }
  const eps = (await client.get(ENDPOINTS, namespace, name, { readOnly: true })) as Endpoints | undefined;
  if (!eps) throw newNotFound(SERVICES, name);
  const subsets = eps.subsets ?? [];
  if (subsets.length === 0) throw newServiceUnavailable(`no endpoints available for service "${name}"`);
  const start = Math.floor(random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(start + i) % subsets.length]!;
    const addresses = (ss.addresses ?? []).filter((a) => isIP(a.ip) !== 0 && !NOT_ALLOWED.check(a.ip, isIP(a.ip) === 4 ? "ipv4" : "ipv6"));
    const p = (ss.ports ?? []).find((x) => (x.name ?? "") === portName);
    if (!p || addresses.length === 0) continue;
    const addr = addresses[Math.floor(random() * addresses.length)]!;
    return { scheme: scheme || "http", host: addr.ip, port: p.port };
  }
  throw newServiceUnavailable(`no endpoints available for service "${id.slice(0, 300)}"`);
}
