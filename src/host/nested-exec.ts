// An Exec for a LinuxHost that runs inside a machine (the node agent's own host objects: pod namespaces,
// veths, the pod bridge). A machine's /sys is a read-only sysfs, so `ip -n <ns>` and `ip netns exec`, which
// remount /sys for the namespace they switch to, fail with "mount of /sys failed". This Exec runs those
// commands as `nsenter --net=/run/netns/<ns> ip ...` instead, which needs no sysfs of its own.
import { HostExec, parseNetnsList, type DetachedOptions, type DetachedProcess, type Exec, type RunOptions, type RunResult } from "./exec.ts";

/** ["ip", "-n", ns, ...rest] (also after "-4"/"-6") or ["ip", "netns", "exec", ns, cmd...] in nsenter form. */
export function rewriteIpNetns(command: string, args: readonly string[]): [string, string[]] {
  if (command !== "ip") return [command, [...args]];
  if (args[0] === "netns" && args[1] === "exec" && args[2] !== undefined && args[3] !== undefined) {
    return ["nsenter", [`--net=/run/netns/${args[2]}`, "--", ...args.slice(3)]];
  }
  const i = args.findIndex((a) => !a.startsWith("-") || a === "-n");
  if (i >= 0 && args[i] === "-n" && args[i + 1] !== undefined) {
    return ["nsenter", [`--net=/run/netns/${args[i + 1]}`, "--", "ip", ...args.slice(0, i), ...args.slice(i + 2)]];
  }
  return [command, [...args]];
}

export class NestedExec implements Exec {
  constructor(private readonly inner: Exec = new HostExec()) {}

  run(command: string, args: readonly string[], options?: RunOptions): Promise<RunResult> {
    const [c, a] = rewriteIpNetns(command, args);
    return this.inner.run(c, a, options);
  }

  spawnDetached(command: string, args: readonly string[], options: DetachedOptions): Promise<DetachedProcess> {
    const [c, a] = rewriteIpNetns(command, args);
    return this.inner.spawnDetached(c, a, options);
  }

  /** The inner Exec's (this process's /run/netns is the machine's own). */
  netnsNames(): Promise<string[]> {
    return this.inner.netnsNames ? this.inner.netnsNames() : this.run("ip", ["netns", "list"]).then((r) => parseNetnsList(r.stdout));
  }
}
