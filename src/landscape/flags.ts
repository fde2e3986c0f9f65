// The values of gardener-local's flags, checked before anything starts: a bad value is one line naming the
// flag and what it expects.
import { parseCidr } from "../host/index.ts";
import { MAX_BASTION_POOL_SIZE } from "../provider-local/options.ts";
import type { Ports } from "./layout.ts";

export function parsePorts(value: string): Ports {
  const p = value.split(",").map((s) => (/^\d+$/.test(s.trim()) ? Number(s) : NaN));
  if (p.length !== 3 || p.some((n) => !Number.isInteger(n) || n < 1 || n > 65535)) throw new Error(`invalid --ports "${value}": expected GARDEN,SEED,SHOOT`);
  return { garden: p[0]!, seed: p[1]!, shoot: p[2]! };
}

export function parsePublicCidr(value: string): string {
  let ok = false;
  try {
    const cidr = parseCidr(value);
    ok = value.includes("/") && cidr.family === 4 && cidr.prefix <= 29;
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`invalid --public-cidr "${value}": expected an IPv4 CIDR of at most /29`);
  return value;
}

export function parseBastionPoolSize(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n > MAX_BASTION_POOL_SIZE) throw new Error(`invalid --bastion-pool-size "${value}": expected an integer from 0 to ${MAX_BASTION_POOL_SIZE}`);
  return n;
}
