// A control plane's vpn-seed-server as deployed on a seed host (docs/reversed-vpn.md#vpn-seed-server): the
// OpenVPN server and the vpn-seed-server process (egress proxy, health), both in the control plane's VPN
// namespace, both recorded host processes kept running by a supervisor.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Host } from "../host/index.ts";
import { SEED_SERVER_CN } from "./openvpn-config.ts";
import { OpenVpnServer, type ServerCredentials } from "./openvpn-server.ts";
import type { SeedServerConfig } from "./seedserver-config.ts";
import { ProcessSupervisor } from "./supervisor.ts";

export const SEED_SERVER_BIN = fileURLToPath(new URL("../../bin/vpn-seed-server.js", import.meta.url));

export interface SeedServerDeploymentOptions {
  host: Host;
  /** The control plane's VPN namespace and its interface on the seed network. */
  netns: string;
  seedInterface: string;
  /** The namespace's seed-network address: OpenVPN, the egress proxy and health listen there. */
  local: string;
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
  readonly openvpn: OpenVpnServer;
  readonly process: ProcessSupervisor;
  readonly configFile: string;

  constructor(private readonly o: SeedServerDeploymentOptions) {
    this.openvpn = new OpenVpnServer({
      host: o.host,
      netns: o.netns,
      seedInterface: o.seedInterface,
      dir: join(o.dir, "openvpn"),
      processName: `vpn-seed-server.${o.namespace}.openvpn`,
      local: o.local,
      transferNetwork: o.transferNetwork,
      shootCidrs: o.shootCidrs,
      credentials: o.credentials,
    });
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

  config(): SeedServerConfig {
    const f = this.openvpn.files;
    return {
      listenAddress: this.o.local,
      transferNetwork: this.o.transferNetwork,
      shootCidrs: [...this.o.shootCidrs],
      servers: [{ name: SEED_SERVER_CN, tunnelAddress: this.openvpn.tunnelAddress, management: f.management, clientCn: this.openvpn.clientCn }],
      certFile: f.cert,
      keyFile: f.key,
      caFile: f.ca,
    };
  }

  /** OpenVPN first (its files hold the credentials), then the vpn-seed-server process. */
  async start(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    await this.openvpn.start();
    await writeFile(this.configFile, JSON.stringify(this.config(), null, 2) + "\n", { mode: 0o600 });
    await this.process.start();
  }

  async stop(): Promise<void> {
    await this.process.stop();
    await this.openvpn.stop();
  }
}
