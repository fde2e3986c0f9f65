// Admission plugin `ServiceIPAllocation`: what kube-apiserver's service REST does with its IP
// allocator. A new Service without spec.clusterIP gets a free address of --service-cluster-ip-range
// (the first address belongs to the `kubernetes` Service); a requested one must be in the range and
// free (422 with kube's message otherwise); "None" makes it headless; ExternalName Services get none.
import type { Service } from "../../apis/core/v1/service.ts";
import { randomInt } from "node:crypto";
import { newInvalid } from "../../apimachinery/errors.ts";
import { Path, invalid } from "../../apimachinery/field/errors.ts";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.ts";
import { SERVICES } from "../registry/core/resources.ts";

export const DEFAULT_SERVICE_CIDR = "10.96.0.0/12";
/** A reservation not yet visible in a list is kept this long. */
const RESERVATION_MS = 60_000;

export interface IPv4Range {
  cidr: string;
  /** First and last usable addresses as integers (network and broadcast excluded). */
  first: number;
  last: number;
}

function ipToInt(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/** Parses an IPv4 CIDR of /12 to /29 (kube-apiserver refuses ranges larger than 2^20 addresses). */
export function parseServiceRange(cidr: string): IPv4Range {
  const [ip = "", bitsText = ""] = cidr.split("/");
  const base = ipToInt(ip);
  const bits = /^\d{1,2}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (base === undefined || !(bits >= 12 && bits <= 29)) throw new Error(`invalid service cluster IP range "${cidr}": expected an IPv4 CIDR from /12 to /29`);
  const size = 2 ** (32 - bits);
  const network = base - (base % size);
  return { cidr: `${intToIp(network)}/${bits}`, first: network + 1, last: network + size - 2 };
}

/** The address of the `kubernetes` Service: the range's first. */
export function kubernetesServiceIP(range: IPv4Range): string {
  return intToIp(range.first);
}

export class ServiceIPAllocation implements AdmissionPlugin {
  readonly name = "ServiceIPAllocation";
  private readonly reserved = new Map<string, number>();

  constructor(
    private readonly range: IPv4Range,
    private readonly clock: Clock,
    private readonly random: (max: number) => number = (max) => randomInt(max),
  ) {}

  admit(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (attrs.operation !== "CREATE" || attrs.subresource !== "" || attrs.resource.group !== "" || attrs.resource.plural !== "services") return;
    return this.allocate(attrs, client);
  }

  private async allocate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    const svc = attrs.object as Service | undefined;
    const spec = svc?.spec;
    if (!spec || typeof spec !== "object" || spec.type === "ExternalName") return;
    const requested = spec.clusterIP || spec.clusterIPs?.[0];
    if (requested === "None") {
      spec.clusterIP = "None";
      spec.clusterIPs = ["None"];
      return;
    }
    const used = await this.used(client);
    const ip = requested ? this.check(attrs.name, requested, used) : this.pick(attrs.name, used);
    if (!attrs.dryRun) this.reserved.set(ip, this.clock.now().getTime() + RESERVATION_MS);
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }

  private async used(client: InternalClient): Promise<Set<string>> {
    const now = this.clock.now().getTime();
    for (const [ip, until] of this.reserved) if (until <= now) this.reserved.delete(ip);
    const used = new Set(this.reserved.keys());
    for (const s of (await client.list(SERVICES, undefined)).items as Service[]) if (s.spec?.clusterIP) used.add(s.spec.clusterIP);
    return used;
  }

  private fail(name: string, ip: string, why: string): never {
    throw newInvalid({ group: "", kind: "Service" }, name, [invalid(Path.root("spec").child("clusterIPs"), [ip], `failed to allocate IP ${ip}: ${why}`)]);
  }

  private check(name: string, ip: string, used: Set<string>): string {
    const n = ipToInt(ip);
    if (n === undefined) return ip; // validation reports the malformed address
    if (n < this.range.first || n > this.range.last) this.fail(name, ip, `provided IP is not in the valid range. The range of valid IPs is ${this.range.cidr}`);
    if (used.has(ip)) this.fail(name, ip, "provided IP is already allocated");
    return ip;
  }

  private pick(name: string, used: Set<string>): string {
    const size = this.range.last - this.range.first + 1;
    // The first address is the kubernetes Service's; it is only handed out when asked for.
    const start = this.random(size);
    for (let i = 0; i < size; i++) {
      const n = this.range.first + ((start + i) % size);
      if (n === this.range.first) continue;
      const ip = intToIp(n);
      if (!used.has(ip)) return ip;
    }
    return this.fail(name, "", `range is full`);
  }
}
