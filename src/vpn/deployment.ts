// A control plane's vpn-seed-server as deployed on a seed host (docs/reversed-vpn.md#vpn-seed-server): the
// OpenVPN server and the vpn-seed-server process (egress proxy, health), both in the control plane's VPN
// namespace, both recorded host processes kept running by a supervisor.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Host } from "../host/index.ts";
import { OpenVpnServer, type ServerCredentials } from "./openvpn-server.ts";
import type { SeedServerConfig } from "./seedserver-config.ts";
import { ProcessSupervisor } from "./supervisor.ts";

export const SEED_SERVER_BIN = fileURLToPath(new URL("../../bin/vpn-seed-server.js", import.meta.url));

export interface SeedServerDeploymentOptions {
  host: Host;
  /** The control plane's VPN namespace and its interface on the seed network. */
  netns: string;
  seedInterface: string;
  /**
   * The namespace's seed-network addresses: OpenVPN server i listens on the i-th, the egress proxy and
   * health on the first. HA needs two.
   */
  locals: readonly string[];
  /** Two OpenVPN servers (vpn-seed-server-0 and -1) and two tunnels. */
  highAvailability?: boolean;
  /** The control-plane namespace (`shoot--<project>--<name>`); names the recorded processes. */
  namespace: string;
  dir: string;
  transferNetwork: string;
  shootCidrs: readonly string[];
  credentials: ServerCredentials;
  /** The vpn-seed-server command (default: this checkout's bin/vpn-seed-server.js with this node). */
  command?: { command: string; args: readonly string[] };
}

export class SeedServerDeployment {
  readonly servers: OpenVpnServer[];
  readonly process: ProcessSupervisor;
  readonly configFile: string;

  constructor(private readonly o: SeedServerDeploymentOptions) {
    const indexes = o.highAvailability ? [0, 1] : [undefined];
    if (o.locals.length < indexes.length) throw new Error(`${indexes.length} seed-network addresses needed, got ${o.locals.length}`);
    this.servers = indexes.map(
      (index, i) =>
        new OpenVpnServer({
          host: o.host,
          netns: o.netns,
          seedInterface: o.seedInterface,
          dir: join(o.dir, index === undefined ? "openvpn" : `openvpn-${index}`),
          processName: `vpn-seed-server.${o.namespace}.openvpn${index === undefined ? "" : `-${index}`}`,
          local: o.locals[i]!,
          transferNetwork: o.transferNetwork,
          ...(index !== undefined ? { index } : {}),
          firewallServers: indexes,
          shootCidrs: o.shootCidrs,
          credentials: o.credentials,
        }),
    );
    this.configFile = join(o.dir, "vpn-seed-server.json");
    const cmd = o.command ?? { command: process.execPath, args: [SEED_SERVER_BIN] };
    this.process = new ProcessSupervisor(o.host, {
      name: `vpn-seed-server.${o.namespace}`,
      command: cmd.command,
      args: [...cmd.args, "--config", this.configFile],
      netns: o.netns,
      logFile: join(o.dir, "vpn-seed-server.log"),
    });
  }

  /** The first (in plain mode the only) OpenVPN server. */
  get openvpn(): OpenVpnServer {
    return this.servers[0]!;
  }

  config(): SeedServerConfig {
    const f = this.openvpn.files;
    return {
      listenAddress: this.o.locals[0]!,
      transferNetwork: this.o.transferNetwork,
      shootCidrs: [...this.o.shootCidrs],
      servers: this.servers.map((s) => ({ name: s.serverName, tunnelAddress: s.tunnelAddress, management: s.files.management, clientCn: s.clientCn })),
      certFile: f.cert,
      keyFile: f.key,
      caFile: f.ca,
    };
  }

  /** OpenVPN first (its files hold the credentials), then the vpn-seed-server process. */
  async start(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    for (const s of this.servers) await s.start();
    await writeFile(this.configFile, JSON.stringify(this.config(), null, 2) + "\n", { mode: 0o600 });
    await this.process.start();
  }

  /**
   * New credentials (a renewal, a CA rotation): every OpenVPN server restarted with them, then the vpn-seed-server
   * process. The process could take them up in place (it reads the files again on each poll), but without the
   * restart test/integration/vpn/renewal.test.ts saw one shoot API server restart too many per CA rotation under
   * load, not yet understood (docs/reversed-vpn.md#health).
   */
  async renew(credentials: ServerCredentials): Promise<void> {
    for (const s of this.servers) await s.renew(credentials);
    await this.process.restart();
  }

  async stop(): Promise<void> {
    await this.process.stop();
    for (const s of this.servers) await s.stop();
  }
}
