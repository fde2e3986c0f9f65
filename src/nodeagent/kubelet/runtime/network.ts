// Pod networking on a node: a bridge in the node's network namespace holding the first address of the
// node's pod range, and per pod a named network namespace with a veth ("eth0" inside) on that bridge, an
// address from the range and a default route through the bridge. Everything goes through host/ and
// carries the owner "pod/<uid>", so a sweep finds what no pod claims.
import { formatAddress, network, parseCidr, type Cidr } from "../../../host/cidr.ts";
import type { LinuxHost } from "../../../host/index.ts";

export class PodNetwork {
  readonly cidr: Cidr;
  readonly gateway: string;
  readonly bridge: string;
  private bridgeReady?: Promise<void>;

  constructor(
    private readonly host: LinuxHost,
    podCIDR: string,
  ) {
    this.cidr = network(parseCidr(podCIDR));
    if (this.cidr.family !== 4 || this.cidr.prefix > 30) throw new Error(`pod range ${podCIDR} must be an IPv4 range of at least 4 addresses`);
    this.gateway = formatAddress(4, this.cidr.value + 1n);
    this.bridge = host.names.link("cbr0");
  }

  netns(uid: string): string {
    return this.host.names.netns("pod", uid);
  }

  private hostLink(uid: string): string {
    return this.host.names.link("veth", uid);
  }

  /** The lowest free address of the range (not the network, gateway or broadcast address). */
  allocate(used: ReadonlySet<string>): string {
    const size = 1n << BigInt(32 - this.cidr.prefix);
    for (let i = 2n; i < size - 1n; i++) {
      const a = formatAddress(4, this.cidr.value + i);
      if (!used.has(a)) return a;
    }
    throw new Error(`pod range ${formatAddress(4, this.cidr.value)}/${this.cidr.prefix} is exhausted`);
  }

  ensureBridge(): Promise<void> {
    this.bridgeReady ??= this.host
      .ensureBridge({ name: this.bridge, addresses: [`${this.gateway}/${this.cidr.prefix}`], owner: "kubelet" })
      .catch((err: unknown) => {
        this.bridgeReady = undefined;
        throw err;
      });
    return this.bridgeReady;
  }

  async setUp(uid: string, ip: string): Promise<string> {
    await this.ensureBridge();
    const netns = this.netns(uid);
    await this.host.ensureBridgePort({ netns, ifname: "eth0", address: `${ip}/${this.cidr.prefix}`, gateway: this.gateway, bridge: this.bridge, hostLink: this.hostLink(uid), owner: `pod/${uid}` });
    return netns;
  }

  /** Kills what still runs in the pod's namespace, deletes its veth and the namespace. */
  async tearDown(uid: string): Promise<void> {
    await this.host.deleteBridgePort({ netns: this.netns(uid), hostLink: this.hostLink(uid) });
  }
}
