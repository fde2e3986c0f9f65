// The OpenVPN side of a vpn-seed-server (docs/reversed-vpn.md#vpn-seed-server): writes the server's
// files, sets up the VPN namespace (sysctls, `inet vpn_seed`) and keeps `openvpn` running in it.
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Host } from "../host/index.ts";
import type { Clock } from "../utils/clock.ts";
import { seedFirewall } from "./firewall.ts";
import {
  DEFAULT_TRANSFER_NETWORK,
  SEED_SERVER_CN,
  haName,
  SHOOT_CLIENT_CN,
  renderCcd,
  renderHooks,
  renderServerConfig,
  serverDevice,
  serverSubnet,
  type ServerFiles,
} from "./openvpn-config.ts";
import { ProcessSupervisor } from "./supervisor.ts";

export interface ServerCredentials {
  bundle: string;
  server: { certPem: string; keyPem: string };
  tlsAuth: string;
}

export interface OpenVpnServerOptions {
  host: Host;
  /** The VPN namespace; undefined when this process already runs inside it. */
  netns?: string;
  /** The VPN namespace's interface on the seed network (for the firewall). */
  seedInterface: string;
  /** Files of this server (configuration, keys, client-config-dir, management socket). */
  dir: string;
  /** Logical name of the recorded `openvpn` process, unique in the host's state directory. */
  processName: string;
  /** The VPN namespace's seed-network address. */
  local: string;
  transferNetwork?: string;
  /** HA server index; undefined in plain mode. */
  index?: number;
  /** Every server of the namespace, for its firewall (default: this one). */
  firewallServers?: readonly (number | undefined)[];
  shootCidrs: readonly string[];
  credentials: ServerCredentials;
  clock?: Clock;
  restartDelayMs?: number;
  onRestart?: () => void;
}

/** Written whole or not at all (a new file renamed over the old): the vpn-seed-server reads these files while they change. */
async function put(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.new`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

export class OpenVpnServer {
  readonly files: ServerFiles & { config: string };
  private readonly supervisor: ProcessSupervisor;
  private credentials: ServerCredentials;

  constructor(private readonly o: OpenVpnServerOptions) {
    this.credentials = o.credentials;
    const d = o.dir;
    this.files = {
      config: join(d, "openvpn.conf"),
      ca: join(d, "bundle.crt"),
      cert: join(d, "tls.crt"),
      key: join(d, "tls.key"),
      tlsAuth: join(d, "vpn.tlsauth"),
      ccdDir: join(d, "ccd"),
      management: join(d, "management.sock"),
      upHook: join(d, "up.sh"),
      downHook: join(d, "down.sh"),
    };
    this.supervisor = new ProcessSupervisor(
      o.host,
      { name: o.processName, command: "openvpn", args: ["--config", this.files.config], ...(o.netns ? { netns: o.netns } : {}), logFile: join(d, "openvpn.log") },
      { ...(o.clock ? { clock: o.clock } : {}), ...(o.restartDelayMs !== undefined ? { restartDelayMs: o.restartDelayMs } : {}), ...(o.onRestart ? { onRestart: o.onRestart } : {}) },
    );
  }

  get transferNetwork(): string {
    return this.o.transferNetwork ?? DEFAULT_TRANSFER_NETWORK;
  }

  /** The server's tunnel address (the source of every connection into the shoot). */
  get tunnelAddress(): string {
    return serverSubnet(this.transferNetwork, this.o.index).address;
  }

  get device(): string {
    return serverDevice(this.o.index);
  }

  /** `vpn-seed-server`, or `vpn-seed-server-<i>` in HA (its Endpoints' and its tunnel's name). */
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
    await mkdir(f.ccdDir, { recursive: true, mode: 0o700 });
    const c = this.credentials;
    await put(f.ca, c.bundle, 0o644);
    await put(f.cert, c.server.certPem, 0o644);
    await put(f.key, c.server.keyPem, 0o600);
    await put(f.tlsAuth, c.tlsAuth, 0o600);
    await put(join(f.ccdDir, this.clientCn), renderCcd(o.shootCidrs), 0o644);
    const hooks = renderHooks({ transferNetwork: this.transferNetwork, ...(o.index !== undefined ? { index: o.index } : {}), shootCidrs: o.shootCidrs });
    await put(f.upHook, hooks.up, 0o700);
    await put(f.downHook, hooks.down, 0o700);
    const config = renderServerConfig({ local: o.local, transferNetwork: this.transferNetwork, ...(o.index !== undefined ? { index: o.index } : {}), shootCidrs: o.shootCidrs, files: f });
    await put(f.config, config, 0o600);
  }

  /** Writes the files, sets up the namespace and starts `openvpn` (kept running until stop()). */
  async start(): Promise<void> {
    const o = this.o;
    await this.writeFiles();
    if (o.netns) {
      // The namespace routes nothing through itself.
      await o.host.execInNetns(o.netns, "sysctl", ["-qw", "net.ipv4.ip_forward=0"]);
      await o.host.applyTable(o.netns, seedFirewall({ seedInterface: o.seedInterface, transferNetwork: this.transferNetwork, servers: o.firewallServers ?? [o.index], shootCidrs: o.shootCidrs }));
    }
    await this.supervisor.start();
  }

  /** New credentials (a renewal, a CA rotation): written, then `openvpn` restarted to read them. Its tunnel breaks once. */
  async renew(credentials: ServerCredentials): Promise<void> {
    this.credentials = credentials;
    await this.writeFiles();
    await this.supervisor.restart();
  }

  async running(): Promise<boolean> {
    return this.supervisor.running();
  }

  /** Stops `openvpn` and forgets its record (the namespace and its table belong to the caller). */
  async stop(): Promise<void> {
    await this.supervisor.stop();
  }
}
