// Connect-info mode output (docs/gardenctl-ssh.md#connect-info-mode): the node table and the ssh command, as text or as one
// json/yaml document.
import { stringify as toYaml } from "yaml";
import type { NodeInfo } from "./nodes.ts";

export interface ConnectInfo {
  bastion: {
    name: string;
    namespace: string;
    preferredAddress: string;
    port: string;
    hostname: string;
    ip: string;
    publicKeyFile: string;
    privateKeyFile: string;
    userKnownHostsFiles: string[];
    strictHostKeyChecking: string;
  };
  nodeHostname?: string;
  nodePrivateKeyFiles: string[];
  nodes: { name: string; status: string; hostname: string; ip: string }[];
  user: string;
  shell: string;
  nodeUserKnownHostsFiles: string[];
  nodeStrictHostKeyChecking: string;
  command: string;
}

export function table(nodes: NodeInfo[]): string {
  const rows = [["NODE NAME", "STATUS", "IP", "HOSTNAME"], ...nodes.map((n) => [n.name, n.status, n.ip, n.hostname])];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]! + 2))).join("").trimEnd()).join("\n");
}

export function connectInfoText(info: ConnectInfo, listNodes: boolean, placeholder: boolean): string {
  const lines: string[] = [];
  if (listNodes) lines.push("> The shoot cluster has the following nodes:", "", table(info.nodes.map((n) => ({ ...n, addresses: [], hostKeys: [], status: n.status as NodeInfo["status"] }))), "");
  lines.push("> Connect to shoot nodes by using the bastion as a proxy/jump host.", `> Run the following command in a separate terminal (formatted for ${info.shell}):`);
  if (placeholder) lines.push("> Note: The command includes a placeholder (IP_OR_HOSTNAME). Replace it with the actual IP or hostname before running the command.");
  lines.push("", info.command, "");
  return lines.map((l) => `${l}\n`).join("");
}

export const PRESS_CTRL_C = "> Press Ctrl-C to stop gardenctl, after which the bastion will be removed.\n";

export function connectInfoDocument(info: ConnectInfo, format: "json" | "yaml"): string {
  return format === "json" ? `${JSON.stringify(info, null, 2)}\n` : toYaml(info);
}
