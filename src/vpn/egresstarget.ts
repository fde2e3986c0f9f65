// What the egress proxy may dial (docs/reversed-vpn.md#egress-proxy): `CONNECT <IPv4>:<port>` where the
// address lies in the shoot's node, pod or service ranges and in none of the always-denied ones. Pure.
import { BlockList, isIP, isIPv4 } from "node:net";
import { parseCIDR } from "../api/cidr.ts";

/** Never proxied to, whatever the shoot's ranges say: this host, unspecified, link-local, multicast, broadcast. */
export const ALWAYS_DENIED = ["0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "255.255.255.255/32"];

export type TargetDecision = { ok: true; host: string; port: number } | { ok: false; code: 400 | 403; message: string };

export class TargetPolicy {
  private readonly allowed = new BlockList();
  private readonly denied = new BlockList();

  /** `ranges`: the shoot's IPv4 node, pod and service CIDRs; `denied`: ranges refused even inside them (the transfer network, seed networks). */
  constructor(ranges: string[], denied: string[] = ALWAYS_DENIED) {
    for (const r of ranges) add(this.allowed, r);
    for (const r of denied) add(this.denied, r);
  }

  decide(target: string): TargetDecision {
    const colon = target.lastIndexOf(":");
    const host = colon > 0 ? target.slice(0, colon) : "";
    const portText = colon > 0 ? target.slice(colon + 1) : "";
    if (host === "" || !/^[0-9]{1,5}$/.test(portText)) return { ok: false, code: 400, message: `malformed target ${clip(target)}` };
    const port = Number(portText);
    if (port < 1 || port > 65535) return { ok: false, code: 400, message: `port ${port} is outside 1-65535` };
    if (!isIPv4(host)) {
      const kind = isIP(host.replace(/^\[|\]$/g, "")) === 6 ? "an IPv6 address" : "not an IPv4 address";
      return { ok: false, code: 403, message: `target ${clip(host)} is ${kind}` };
    }
    if (!this.allowed.check(host, "ipv4") || this.denied.check(host, "ipv4")) {
      return { ok: false, code: 403, message: `target ${host}:${port} is outside the shoot networks` };
    }
    return { ok: true, host, port };
  }
}

function add(list: BlockList, cidr: string): void {
  const p = parseCIDR(cidr);
  if (!p || p.family !== 4) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  list.addSubnet(p.address, p.prefix, "ipv4");
}

const clip = (s: string) => (s.length > 64 ? s.slice(0, 64) + "…" : s);
