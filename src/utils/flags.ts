// Flag helpers shared by the components' commands (controller manager, gardenlet, provider-local, ...).
import { isIP } from "node:net";

export class FlagError extends Error {}

export interface BindAddress {
  host: string;
  port: number;
}

/** "host:port", ":port" (all interfaces), "[::1]:port"; "0" disables (undefined). */
export function parseBindAddress(text: string, flag: string): BindAddress | undefined {
  if (text === "0") return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new FlagError(`invalid value "${text}" for ${flag}: expected host:port, :port or 0`);
  const host = m[1] ?? m[2] ?? "";
  if (host !== "" && host !== "localhost" && isIP(host) === 0) throw new FlagError(`invalid value "${text}" for ${flag}: ${host} is not an IP address`);
  return { host: host === "" ? "0.0.0.0" : host, port };
}
