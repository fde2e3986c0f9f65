// The local landscape's networks (docs/machines.md#networks-and-firewalls): one public network, where the user's machine and the
// bastions' public addresses live, and one node network per shoot. A node network is a bridge inside the
// shoot's router namespace; the router masquerades the nodes towards the public network and drops every
// new connection from the public side (host/ NAT), so nodes reach the public network only through NAT and
// nothing on it reaches them except through a bastion. Everything is named, owned and idempotent.
import { normalizeCidr, parseCidr } from "../../host/cidr.ts";
import type { Host } from "../../host/index.ts";
import { allocateIn, carveIn, nthAddress, releaseIn, type AddressBook, type Allocations } from "./addresses.ts";
import { KeyedMutex } from "./lock.ts";

/**
 * A /16 from the range RFC 2544 reserves for benchmarks: routed into the host namespace (the host's veth to
 * the public bridge), it must not shadow a network the host really uses, as 192.168.0.0/16 would
 * (docs/adr/0010-address-space.md).
 */
export const DEFAULT_PUBLIC_CIDR = "198.18.0.0/16";
/** Gardener's default node CIDR: the landscape's shoot has it as spec.networking.nodes. */
export const DEFAULT_NODE_CIDR = "10.250.0.0/16";
/** Where nodeCidrFor carves blocks for shoots of tests that have no node CIDR of their own. */
export const DEFAULT_NODE_POOL = "10.250.0.0/16";
export const DEFAULT_NODE_PREFIX_LENGTH = 24;
/**
 * Ports a Linux bridge holds (BR_MAX_PORTS - 1): each address of the public pool (host, routers, users,
 * bastions) and of a node pool (bastions, workers) is one port of its bridge, so a pool is full at this
 * many entries, whatever room its CIDR has.
 */
export const MAX_BRIDGE_PORTS = 1023;

/** Interface names inside a shoot's router namespace. */
export const ROUTER_NODE_BRIDGE = "br-nodes";
export const ROUTER_PUBLIC_IF = "public0";

export const POOL_PUBLIC = "public";
const POOL_NODE_CIDRS = "node-cidrs";
const POOL_NODE_NETWORKS = "node-networks";
/** namespace -> the address the shoot's control plane opens connections to its nodes' kubelets from. */
const POOL_CONTROL_PLANE = "control-plane-sources";
/** The kubelet's port on every node (the node agent's kubelet endpoint). */
export const KUBELET_PORT = 10250;
export const nodePool = (namespace: string): string => `nodes/${namespace}`;
/** A node network's route table for pod ranges: worker key ("worker/<name>", its key in nodePool) -> its pod range. */
const podRoutesPool = (namespace: string): string => `pod-routes/${namespace}`;

export interface PublicNetwork {
  netns: string;
  bridge: string;
  /** Normalised ("192.168.250.0/24"). */
  cidr: string;
  /** The bridge's own address (offset 1). */
  gateway: string;
  prefixLength: number;
}

export interface NodeNetwork {
  /** The shoot's control-plane namespace. */
  namespace: string;
  /** The router namespace holding the bridge. */
  netns: string;
  bridge: string;
  cidr: string;
  /** The router's address on the node network: the nodes' default gateway. */
  gateway: string;
  prefixLength: number;
}

export interface LocalNetworksOptions {
  host: Host;
  addresses: AddressBook;
  publicCidr?: string;
  /** Where per-shoot node CIDRs are carved from (default 10.250.0.0/16). */
  nodePool?: string;
  nodePrefixLength?: number;
  /** Machines per bridge (default MAX_BRIDGE_PORTS; tests use fewer). */
  maxPorts?: number;
}

export interface Attachment {
  netns: string;
  /** Without prefix length. */
  address: string;
}

export class LocalNetworks {
  readonly host: Host;
  readonly addresses: AddressBook;
  readonly public: PublicNetwork;
  readonly nodePool: string;
  readonly nodePrefixLength: number;
  readonly maxPorts: number;
  private readonly mutex = new KeyedMutex();
  private readonly machineMutex = new KeyedMutex();
  /**
   * Networks this process has ensured ("public", "nodes/<namespace>" -> its CIDR). Every reconcile asks for
   * them; while their namespace exists they are not checked again link by link (a dozen commands, about
   * 0.1 s). A restarted process ensures everything once more.
   */
  private readonly ensured = new Map<string, string>();
  /**
   * Bastion machines being removed by this process: from the moment their removal starts they are in no
   * worker's allowed set, also when another bastion's change rewrites the sets meanwhile.
   */
  readonly leavingBastions = new Set<string>();
  /**
   * Bastion machines this process is building, with their shoot and node address: their workers allow them
   * while the machine is made, before its record names the address (docs/bastion.md#provider-local).
   */
  readonly arrivingBastions = new Map<string, { namespace: string; address: string }>();

  constructor(o: LocalNetworksOptions) {
    this.host = o.host;
    this.addresses = o.addresses;
    const cidr = normalizeCidr(o.publicCidr ?? DEFAULT_PUBLIC_CIDR);
    const prefixLength = parseCidr(cidr).prefix;
    this.public = { netns: o.host.names.netns("public"), bridge: o.host.names.link("public"), cidr, gateway: nthAddress(cidr, 1), prefixLength };
    this.nodePool = normalizeCidr(o.nodePool ?? DEFAULT_NODE_POOL);
    this.nodePrefixLength = o.nodePrefixLength ?? DEFAULT_NODE_PREFIX_LENGTH;
    this.maxPorts = Math.min(o.maxPorts ?? MAX_BRIDGE_PORTS, MAX_BRIDGE_PORTS);
  }

  /** Runs fn alone among this process's callers with the same key (e.g. changes to one shoot's machines). */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.machineMutex.run(key, fn);
  }

  /**
   * Like exclusive, for an idempotent fn that reads the current state when it starts (a rewrite of the
   * workers' bastion sets): callers waiting for the key share one run that starts after all of them.
   */
  exclusiveShared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.machineMutex.runShared(key, fn);
  }

  /** The public network's namespace and bridge (idempotent). */
  ensurePublic(): Promise<PublicNetwork> {
    return this.mutex.run("public", async () => {
      const p = this.public;
      if (this.ensured.has("public") && (await this.host.netnsExists(p.netns))) return p;
      // The node networks' uplinks hang on the public bridge: check them again as well.
      this.ensured.clear();
      await this.host.ensureNetns(p.netns, { owner: "network/public" });
      await this.host.ensureBridge({ name: p.bridge, netns: p.netns, addresses: [`${p.gateway}/${p.prefixLength}`], owner: "network/public" });
      this.ensured.set("public", p.cidr);
      return p;
    });
  }

  /** Removes the public network (its bridge goes with its namespace; attached veths with it). */
  async deletePublic(): Promise<void> {
    this.ensured.clear();
    await this.host.deleteNetns(this.public.netns);
  }

  /** An address on the public network for `key`, the same one again for the same key. */
  allocatePublic(key: string): Promise<string> {
    return this.addresses.update((a) => allocateIn(a, POOL_PUBLIC, this.public.cidr, key, { maxEntries: this.maxPorts, what: "the public network" }));
  }

  /** An address on the shoot's node network for `key` (the network must be ensured). */
  async allocateNode(namespace: string, key: string): Promise<string> {
    const net = await this.needNodeNetwork(namespace);
    return this.addresses.update((a) => allocateIn(a, nodePool(namespace), net.cidr, key, { maxEntries: this.maxPorts, what: `the node network of ${namespace}` }));
  }

  /**
   * A public address for `publicKey` and one on the shoot's node network for `nodeKey` (a bastion's two), in
   * one update of the address book: both or, when either network is full, neither.
   */
  async allocatePublicAndNode(namespace: string, publicKey: string, nodeKey: string): Promise<{ publicAddress: string; nodeAddress: string }> {
    const net = await this.needNodeNetwork(namespace);
    return this.addresses.update((a) => ({
      publicAddress: allocateIn(a, POOL_PUBLIC, this.public.cidr, publicKey, { maxEntries: this.maxPorts, what: "the public network" }),
      nodeAddress: allocateIn(a, nodePool(namespace), net.cidr, nodeKey, { maxEntries: this.maxPorts, what: `the node network of ${namespace}` }),
    }));
  }

  release(pool: string, key: string): Promise<void> {
    return this.addresses.update((a) => releaseIn(a, pool, key));
  }

  /**
   * A namespace of its own on the public network (the user's machine, a test client): netns
   * `u-<name>`, interface eth0 with an allocated address.
   */
  async attachUser(name: string): Promise<Attachment> {
    const p = await this.ensurePublic();
    const netns = this.host.names.netns("u", name);
    const address = await this.allocatePublic(`user/${name}`);
    const owner = `user/${name}`;
    await this.host.ensureNetns(netns, { owner });
    await this.host.ensureVeth({
      name: "eth0", netns, addresses: [`${address}/${p.prefixLength}`],
      peer: { name: this.host.names.link("u", name), netns: p.netns, master: p.bridge }, owner,
    });
    return { netns, address };
  }

  async detachUser(name: string): Promise<void> {
    await this.host.deleteNetns(this.host.names.netns("u", name));
    await this.release(POOL_PUBLIC, `user/${name}`);
  }

  /**
   * Lets `from` (the address the shoot's API server connects from) open TCP connections to port 10250 of
   * the shoot's nodes through its router; nothing else of the outside gets in. Recorded with the node
   * network, so every process that ensures it keeps the exception; takes effect at the next
   * ensureNodeNetwork. Until the reversed VPN carries this traffic (docs/machines.md#the-control-plane-reaches-the-kubelets).
   */
  async allowControlPlane(namespace: string, from: string): Promise<void> {
    parseCidr(from);
    await this.addresses.update((a) => ((a[POOL_CONTROL_PLANE] ??= {})[namespace] = from));
    this.ensured.delete(`nodes/${namespace}`);
  }

  /** The router's address on the public network (where the host routes the shoot's node addresses), if allocated. */
  async routerAddress(namespace: string): Promise<string | undefined> {
    return (await this.addresses.read())[POOL_PUBLIC]?.[`router/${namespace}`];
  }

  /** A block of the node pool for the shoot (default /24), the same one again for the same namespace. */
  nodeCidrFor(namespace: string): Promise<string> {
    return this.addresses.update((a) => carveIn(a, POOL_NODE_CIDRS, this.nodePool, namespace, this.nodePrefixLength));
  }

  /** The shoot's node network as ensured before, or undefined. */
  async nodeNetwork(namespace: string): Promise<NodeNetwork | undefined> {
    const cidr = (await this.addresses.read())[POOL_NODE_NETWORKS]?.[namespace];
    return cidr === undefined ? undefined : this.describe(namespace, cidr);
  }

  private async needNodeNetwork(namespace: string): Promise<NodeNetwork> {
    const net = await this.nodeNetwork(namespace);
    if (!net) throw new Error(`the node network of ${namespace} does not exist`);
    return net;
  }

  private describe(namespace: string, cidr: string): NodeNetwork {
    const c = normalizeCidr(cidr);
    return { namespace, netns: this.host.names.netns("nodes", namespace), bridge: ROUTER_NODE_BRIDGE, cidr: c, gateway: nthAddress(c, 1), prefixLength: parseCidr(c).prefix };
  }

  /**
   * The shoot's node network (idempotent): router namespace, bridge with the gateway address, a veth to
   * the public network, one-way NAT. `cidr` defaults to the one ensured before, else a carved block.
   */
  async ensureNodeNetwork(namespace: string, cidr?: string): Promise<NodeNetwork> {
    const p = await this.ensurePublic();
    return this.mutex.run(`nodes/${namespace}`, async () => {
      const book = await this.addresses.read();
      const known = book[POOL_NODE_NETWORKS]?.[namespace];
      const controlPlane = book[POOL_CONTROL_PLANE]?.[namespace];
      const wanted = normalizeCidr(cidr ?? known ?? (await this.nodeCidrFor(namespace)));
      if (known !== undefined && normalizeCidr(known) !== wanted) {
        throw new Error(`the node network of ${namespace} is ${known}, not ${wanted}`);
      }
      if (parseCidr(wanted).family !== 4) throw new Error(`node network ${wanted}: only IPv4 node networks are supported`);
      const memo = `nodes/${namespace}`;
      if (this.ensured.get(memo) === wanted && (await this.host.netnsExists(this.host.names.netns("nodes", namespace)))) return this.describe(namespace, wanted);
      this.ensured.delete(memo);
      await this.addresses.update((a) => ((a[POOL_NODE_NETWORKS] ??= {})[namespace] = wanted));
      const net = this.describe(namespace, wanted);
      const owner = `network/${namespace}`;
      const routerAddress = await this.allocatePublic(`router/${namespace}`);
      await this.host.ensureNetns(net.netns, { owner });
      await this.host.ensureBridge({ name: net.bridge, netns: net.netns, addresses: [`${net.gateway}/${net.prefixLength}`], owner });
      await this.host.ensureVeth({
        name: ROUTER_PUBLIC_IF, netns: net.netns, addresses: [`${routerAddress}/${p.prefixLength}`],
        peer: { name: this.host.names.link("r", namespace), netns: p.netns, master: p.bridge }, owner,
      });
      const podRoutes = routesOf(book, namespace);
      await this.host.ensureNat({
        name: namespace, netns: net.netns, sourceCidr: net.cidr, outInterface: ROUTER_PUBLIC_IF, owner,
        ...(controlPlane ? { inbound: [{ saddr: controlPlane, dport: KUBELET_PORT }] } : {}),
        ...(podRoutes.length > 0 ? { routed: podRoutes.map((r) => r.cidr) } : {}),
      });
      for (const r of podRoutes) await this.host.ensureRoute({ netns: net.netns, destination: r.cidr, via: r.via, dev: net.bridge, owner });
      this.ensured.set(memo, wanted);
      return net;
    });
  }

  /**
   * Routes `podCidr` in the shoot's router to the node `key` ("worker/<name>", allocated in the node network), as a
   * cloud network's route table sends each node's pod range to the node (docs/machines.md#pods-on-workers): the
   * node network (the vpn-shoot-client, other nodes) reaches pod IPs through the router; the public side does
   * not. Recorded with the node network, so every process that ensures it keeps the route.
   */
  async routePods(namespace: string, key: string, podCidr: string): Promise<void> {
    const cidr = normalizeCidr(podCidr);
    if (parseCidr(cidr).family !== 4) throw new Error(`pod range ${podCidr}: only IPv4 is supported`);
    await this.addresses.update((a) => {
      if (a[nodePool(namespace)]?.[key] === undefined) throw new Error(`${key} has no address in the node network of ${namespace}`);
      (a[podRoutesPool(namespace)] ??= {})[key] = cidr;
    });
    this.ensured.delete(`nodes/${namespace}`);
    await this.ensureNodeNetwork(namespace);
  }

  /** Removes the node's pod route (routePods) from the router and the book; nothing to do without one. */
  async unroutePods(namespace: string, key: string): Promise<void> {
    await this.mutex.run(`nodes/${namespace}`, async () => {
      const cidr = (await this.addresses.read())[podRoutesPool(namespace)]?.[key];
      if (cidr === undefined) return;
      const netns = this.host.names.netns("nodes", namespace);
      if (await this.host.netnsExists(netns)) await this.host.deleteRoute({ netns, destination: cidr, dev: ROUTER_NODE_BRIDGE });
      await this.addresses.update((a) => releaseIn(a, podRoutesPool(namespace), key));
      this.ensured.delete(`nodes/${namespace}`);
    });
  }

  /** Removes the router namespace (bridge, veth, NAT go with it) and every allocation of the shoot. */
  async deleteNodeNetwork(namespace: string): Promise<void> {
    await this.mutex.run(`nodes/${namespace}`, async () => {
      this.ensured.delete(`nodes/${namespace}`);
      await this.host.deleteNetns(this.host.names.netns("nodes", namespace));
      if (await this.host.netnsExists(this.public.netns)) await this.host.deleteLink(this.host.names.link("r", namespace), this.public.netns);
      await this.addresses.update((a) => {
        delete a[nodePool(namespace)];
        delete a[podRoutesPool(namespace)];
        releaseIn(a, POOL_NODE_NETWORKS, namespace);
        releaseIn(a, POOL_NODE_CIDRS, namespace);
        releaseIn(a, POOL_CONTROL_PLANE, namespace);
        releaseIn(a, POOL_PUBLIC, `router/${namespace}`);
      });
    });
  }
}

/** The node network's pod routes whose node still has its address: pod range -> node address. */
function routesOf(book: Allocations, namespace: string): { cidr: string; via: string }[] {
  const nodes = book[nodePool(namespace)] ?? {};
  return Object.entries(book[podRoutesPool(namespace)] ?? {}).flatMap(([key, cidr]) => (nodes[key] === undefined ? [] : [{ cidr, via: nodes[key] }]));
}
