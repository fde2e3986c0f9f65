// The vpn-shoot-client (docs/reversed-vpn.md#vpn-shoot-client): in its own namespace on the shoot's node
// network, it installs forwarding and masquerading, then keeps an OpenVPN client running that dials the
// seed's CONNECT proxy with the `Reversed-VPN` header, forever.
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Host } from "../host/index.ts";
import type { Clock } from "../utils/clock.ts";
import { shootFirewall } from "./firewall.ts";
import { DEFAULT_TRANSFER_NETWORK, SEED_SERVER_CN, SHOOT_CLIENT_CN, haName, renderClientConfig, type ClientFiles } from "./openvpn-config.ts";
import { ProcessSupervisor } from "./supervisor.ts";

export interface ClientCredentials {
  bundle: string;
  client: { certPem: string; keyPem: string };
  tlsAuth: string;
}

export interface ShootClientOptions {
  host: Host;
  /** The client's namespace on the node network. */
  netns: string;
  /** Its interface on the node network, and that network. */
  nodeInterface: string;
  nodeNetwork: string;
  dir: string;
  processName: string;
  /** The control-plane namespace whose vpn-seed-server the tunnel goes to. */
  namespace: string;
  /** The seed CONNECT proxy. */
  proxyHost: string;
  proxyPort?: number;
  /** The host named in the CONNECT request line (default: the proxy host). */
  endpoint?: string;
  transferNetwork?: string;
  index?: number;
  shootCidrs: readonly string[];
  credentials: ClientCredentials;
  clock?: Clock;
  restartDelayMs?: number;
  onRestart?: () => void;
}

async function put(path: string, data: string, mode: number): Promise<void> {
  await writeFile(path, data, { mode });
  await chmod(path, mode);
}

export class ShootClient {
  readonly files: ClientFiles & { config: string };
  private readonly supervisor: ProcessSupervisor;
  private credentials: ClientCredentials;

  constructor(private readonly o: ShootClientOptions) {
    this.credentials = o.credentials;
    const d = o.dir;
    this.files = {
      config: join(d, "openvpn.conf"),
      ca: join(d, "bundle.crt"),
      cert: join(d, "tls.crt"),
      key: join(d, "tls.key"),
      tlsAuth: join(d, "vpn.tlsauth"),
      management: join(d, "management.sock"),
    };
    this.supervisor = new ProcessSupervisor(
      o.host,
      { name: o.processName, command: "openvpn", args: ["--config", this.files.config], netns: o.netns, logFile: join(d, "openvpn.log") },
      { ...(o.clock ? { clock: o.clock } : {}), ...(o.restartDelayMs !== undefined ? { restartDelayMs: o.restartDelayMs } : {}), ...(o.onRestart ? { onRestart: o.onRestart } : {}) },
    );
  }

  /** The server this client's tunnel goes to. */
  get serverName(): string {
    return haName(SEED_SERVER_CN, this.o.index);
  }

  get clientCn(): string {
    return haName(SHOOT_CLIENT_CN, this.o.index);
  }

  get restarts(): number {
    return this.supervisor.restarts;
  }

  get pid(): number | undefined {
    return this.supervisor.pid;
  }

  async writeFiles(): Promise<void> {
    const o = this.o;
    const f = this.files;
    await mkdir(o.dir, { recursive: true, mode: 0o700 });
    const c = this.credentials;
    await put(f.ca, c.bundle, 0o644);
    await put(f.cert, c.client.certPem, 0o644);
    await put(f.key, c.client.keyPem, 0o600);
    await put(f.tlsAuth, c.tlsAuth, 0o600);
    const config = renderClientConfig({
      endpoint: o.endpoint ?? o.proxyHost,
      proxyHost: o.proxyHost,
      ...(o.proxyPort !== undefined ? { proxyPort: o.proxyPort } : {}),
      namespace: o.namespace,
      ...(o.index !== undefined ? { index: o.index } : {}),
      files: f,
    });
    await put(f.config, config, 0o600);
  }

  /** Sysctls and the firewall first, then `openvpn` (kept running until stop()). */
  async start(): Promise<void> {
    const o = this.o;
    await this.writeFiles();
    for (const kv of ["net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", "net.ipv4.conf.all.log_martians=0", "net.ipv4.conf.default.log_martians=0"]) {
      await o.host.execInNetns(o.netns, "sysctl", ["-qw", kv]);
    }
    await o.host.applyTable(
      o.netns,
      shootFirewall({ nodeInterface: o.nodeInterface, nodeNetwork: o.nodeNetwork, transferNetwork: o.transferNetwork ?? DEFAULT_TRANSFER_NETWORK, shootCidrs: o.shootCidrs }),
    );
    await this.supervisor.start();
  }

  /** New credentials (a renewal, a CA rotation): written, then `openvpn` restarted to read them. Its tunnel breaks once. */
  async renew(credentials: ClientCredentials): Promise<void> {
    this.credentials = credentials;
    await this.writeFiles();
    await this.supervisor.restart();
  }

  async running(): Promise<boolean> {
    return this.supervisor.running();
  }

  async stop(): Promise<void> {
    await this.supervisor.stop();
  }
}

export const SHOOT_CLIENT_BIN = fileURLToPath(new URL("../../bin/vpn-shoot-client.js", import.meta.url));

export interface ShootHealthProcessOptions {
  host: Host;
  netns: string;
  /** The client's node-network address: health listens on 8080 there. */
  listenAddress: string;
  namespace: string;
  dir: string;
  clients: readonly ShootClient[];
  command?: { command: string; args: readonly string[] };
}

/** The vpn-shoot-client's health process (bin/vpn-shoot-client.js) in the client's namespace, supervised. */
export class ShootHealthProcess {
  private readonly supervisor: ProcessSupervisor;
  private readonly configFile: string;

  constructor(private readonly o: ShootHealthProcessOptions) {
    this.configFile = join(o.dir, "vpn-shoot-client.json");
    const cmd = o.command ?? { command: process.execPath, args: [SHOOT_CLIENT_BIN] };
    this.supervisor = new ProcessSupervisor(o.host, {
      name: `vpn-shoot-client.${o.namespace}.health`,
      command: cmd.command,
      args: [...cmd.args, "--config", this.configFile],
      netns: o.netns,
      logFile: join(o.dir, "vpn-shoot-client.log"),
    });
  }

  async start(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    const config = { listenAddress: this.o.listenAddress, clients: this.o.clients.map((c) => ({ server: c.serverName, management: c.files.management })) };
    await put(this.configFile, JSON.stringify(config, null, 2) + "\n", 0o600);
    await this.supervisor.start();
  }

  async running(): Promise<boolean> {
    return this.supervisor.running();
  }

  get restarts(): number {
    return this.supervisor.restarts;
  }

  async stop(): Promise<void> {
    await this.supervisor.stop();
  }
}
