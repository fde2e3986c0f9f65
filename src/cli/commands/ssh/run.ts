// `gardenctl ssh`: the flow of docs/gardenctl-ssh.md#flow from validated flags to the session, with cleanup on every
// exit path. Returns the process exit code; writes `Error: <message>` for gardenctl's failures.
import { accessSync, constants as fsConstants } from "node:fs";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { requireAgentKey } from "./agent.ts";
import { createOrReuseBastion, startKeepalive } from "./bastion.ts";
import { determineCIDRs } from "./cidr.ts";
import { PRESS_CTRL_C, type ConnectInfo, connectInfoDocument, connectInfoText } from "./connectinfo.ts";
import { CLIError, SignalError, errorMessage } from "./errors.ts";
import { bastionPolicy, defaultNodeKnownHosts, nodePolicy } from "./hostkeys.ts";
import { type KeyPair, generateKeyPair, makePrivateDir, readPrivateKeyFile, readPublicKeyFile } from "./keys.ts";
import { Logger } from "./log.ts";
import { type NodeInfo, getNode, listNodes, nodeHost, nodeInfo, shootClient, writeNodeKeys } from "./nodes.ts";
import { type RawFlags, type SSHOptions, validateOptions } from "./options.ts";
import { probeBastion } from "./probe.ts";
import { NODE_PLACEHOLDER, type SSHCommandInput, printedCommand, sshArgs, startSSH } from "./sshcmd.ts";
import { gardenClient, gardenHome, loadConfig, resolveTarget } from "./target.ts";
import { watchBastion, waitForReady } from "./wait.ts";
import { Session } from "./session.ts";

export interface IO {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** stdin and stderr are terminals. */
  tty: boolean;
}

export async function runSSH(raw: RawFlags, positional: string[], command: string[], io: IO): Promise<number> {
  const log = new Logger(io.stderr, raw.v);
  const s = new Session(log);
  try {
    return await flow(s, raw, positional, command, io, log);
  } catch (err) {
    log.clearSpinner();
    if (err instanceof SignalError) return err.exitCode;
    io.stderr.write(`Error: ${errorMessage(err)}\n`);
    return err instanceof CLIError ? err.exitCode : 1;
  } finally {
    await s.cleanup();
  }
}

function onPath(bin: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? "").split(delimiter).some((d) => {
    try {
      accessSync(join(d || ".", bin), fsConstants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

async function flow(s: Session, raw: RawFlags, positional: string[], command: string[], io: IO, log: Logger): Promise<number> {
  const o: SSHOptions = validateOptions(raw, positional, command, io.env, io.tty, log);
  let givenPublicKey: string | undefined;
  if (o.publicKeyFile !== undefined) {
    givenPublicKey = readPublicKeyFile(o.publicKeyFile);
    if (o.privateKeyFile !== undefined) readPrivateKeyFile(o.privateKeyFile);
    else await s.step(requireAgentKey(io.env));
  }
  if (!onPath("ssh", io.env)) throw new CLIError("ssh client not found in PATH; install an OpenSSH client");

  const config = loadConfig(o, io.env);
  const cidrs = await s.step(determineCIDRs({ cidrs: o.cidr, publicIpCommand: o.publicIpCommand, env: io.env, config: config.ssh, signal: s.cancel.signal }, log));
  const { client, gardenName } = gardenClient(o, config, io.env);
  s.onStop(() => client.close());
  const target = await s.step(resolveTarget(o, client, gardenName));
  const shoot = target.shoot;
  const shootName = shoot.metadata.name!;
  log.info("Preparing SSH access", { target: `${target.scope}/${shootName}`, garden: gardenName });
  if (shoot.spec.provider.workersSettings?.sshAccess?.enabled === false) throw new CLIError("node SSH access disabled, SSH not allowed");

  s.dir = makePrivateDir(io.env);
  const dir = s.dir;
  let keys: KeyPair;
  if (givenPublicKey !== undefined) keys = { publicKey: givenPublicKey, publicKeyFile: o.publicKeyFile!, privateKeyFile: o.privateKeyFile };
  else keys = generateKeyPair(dir, o.keyType);
  s.publicKeyFile = keys.publicKeyFile;
  s.privateKeyFile = keys.privateKeyFile;

  // Nodes (step 2) and node keys (step 3).
  const nodesClient = await s.step(shootClient(client, shoot));
  s.onStop(() => nodesClient.close());
  let nodes: NodeInfo[] = [];
  let host = NODE_PLACEHOLDER;
  let target1: NodeInfo | undefined;
  if (o.nodeName === undefined) {
    nodes = await s.step(listNodes(nodesClient));
  } else {
    const node = await s.step(getNode(nodesClient, o.nodeName, log));
    host = node ? nodeHost(node) : o.nodeName;
    if (node) target1 = nodeInfo(node);
  }
  s.nodeKeyFiles = await s.step(writeNodeKeys(client, target.namespace, shootName, dir));

  // Bastion (steps 4-8).
  const ingress = cidrs.map((cidr) => ({ ipBlock: { cidr } }));
  const created = await s.step(createOrReuseBastion(client, { namespace: target.namespace, shootName, publicKey: keys.publicKey, ingress, name: o.bastionName }, log));
  const bname = created.metadata.name!;
  const bkey = `${target.namespace}/${bname}`;
  s.bastion = { client, namespace: target.namespace, name: bname };
  s.keepBastion = o.keepBastion;
  if (o.keepalive) {
    s.onStop(startKeepalive(client, target.namespace, bname, o.keepaliveInterval, log, (m) => s.end(m)));
  }
  const deadline = Date.now() + o.waitTimeout;
  const spinner = o.tty && o.interactive;
  const ready: Bastion = await s.step(waitForReady(client, created, { timeoutMs: o.waitTimeout, bastionHost: o.bastionHost, spinner, signal: s.cancel.signal }, log));
  const watchStop = new AbortController();
  s.onStop(() => watchStop.abort());
  const gone = (b: Bastion | undefined): void => {
    if (b !== undefined && !b.metadata.deletionTimestamp) return;
    watchStop.abort();
    log.info("Can't keep bastion alive. Bastion is already gone.");
    s.end(`bastion "${bkey}" is gone (deleted or expired); ending the session`);
  };
  void watchBastion(client, target.namespace, bname, ready.metadata.resourceVersion, gone, (err) => s.end(`failed to watch bastion "${bkey}": ${errorMessage(err)}`), watchStop.signal);

  const ip = ready.status?.ingress?.ip ?? "";
  const hostname = ready.status?.ingress?.hostname ?? "";
  const address = o.bastionHost ?? (ip || hostname);
  const fallbackFlags = (files: string[], strict: "bastion" | "node") => ({
    files,
    strict: strict === "bastion" ? o.bastionStrictHostKeyChecking : o.nodeStrictHostKeyChecking,
    explicit: files.length > 0 || (strict === "bastion" ? raw.bastionStrictHostKeyChecking : raw.nodeStrictHostKeyChecking) !== undefined,
    tty: o.tty,
  });
  const bastionHop = bastionPolicy(dir, ready, o.bastionHost, o.bastionPort, fallbackFlags(o.bastionUserKnownHostsFile, "bastion"), log);
  const nodeTargets = o.nodeName === undefined ? nodes.map((info) => ({ info })) : target1 ? [{ info: target1, host }] : [];
  const nodeHop = nodePolicy(dir, nodeTargets, defaultNodeKnownHosts(gardenHome(io.env), shoot.metadata.uid ?? shootName), fallbackFlags(o.nodeUserKnownHostsFile, "node"), log);
  if (o.skipAvailabilityCheck) log.info("Bastion is ready, skipping availability check");
  else await s.step(probeBastion(address, Number(o.bastionPort || "22"), deadline, log, s.cancel.signal));
  log.info("Bastion host became available.", { address: ip && hostname ? `${ip} (${hostname})` : ip || hostname || address });

  const input: SSHCommandInput = {
    shell: o.shell,
    bastionAddress: address,
    bastionPort: o.bastionPort,
    bastionPrivateKeyFile: keys.privateKeyFile,
    bastionKnownHostsFiles: bastionHop.files,
    bastionStrictHostKeyChecking: bastionHop.strict,
    nodeKnownHostsFiles: nodeHop.files,
    nodeStrictHostKeyChecking: nodeHop.strict,
    nodePrivateKeyFiles: s.nodeKeyFiles,
    user: o.user,
    nodeHost: host,
    command: o.command,
  };
  const printed = printedCommand(input);
  if (!o.interactive) return connectInfo(s, o, io, input, printed, nodes, { name: bname, namespace: target.namespace, ip, hostname, address, keys });

  const hint = `> You can open additional SSH sessions by running the following command in a separate terminal:\n\n${printed}\n\n`;
  (o.command.length > 0 ? io.stderr : io.stdout).write(hint);
  const ssh = startSSH(sshArgs(input), io.env);
  s.ssh = ssh;
  const outcome = await Promise.race([ssh.exited.then((code) => ({ code })), s.ended.catch((err: unknown) => ({ err }))]);
  if ("code" in outcome) return outcome.code;
  ssh.terminate();
  await ssh.exited;
  throw outcome.err;
}

async function connectInfo(s: Session, o: SSHOptions, io: IO, input: SSHCommandInput, printed: string, nodes: NodeInfo[], b: { name: string; namespace: string; ip: string; hostname: string; address: string; keys: KeyPair }): Promise<number> {
  const info: ConnectInfo = {
    bastion: {
      name: b.name,
      namespace: b.namespace,
      preferredAddress: b.address,
      port: o.bastionPort,
      hostname: b.hostname,
      ip: b.ip,
      publicKeyFile: b.keys.publicKeyFile,
      privateKeyFile: b.keys.privateKeyFile ?? "",
      userKnownHostsFiles: input.bastionKnownHostsFiles,
      strictHostKeyChecking: input.bastionStrictHostKeyChecking,
    },
    ...(o.nodeName !== undefined ? { nodeHostname: input.nodeHost } : {}),
    nodePrivateKeyFiles: input.nodePrivateKeyFiles,
    nodes: nodes.map((n) => ({ name: n.name, status: n.status, hostname: n.hostname, ip: n.ip })),
    user: o.user,
    shell: o.shell,
    nodeUserKnownHostsFiles: input.nodeKnownHostsFiles,
    nodeStrictHostKeyChecking: input.nodeStrictHostKeyChecking,
    command: printed,
  };
  if (o.output) io.stdout.write(connectInfoDocument(info, o.output));
  else io.stdout.write(connectInfoText(info, o.nodeName === undefined, o.nodeName === undefined));
  if (!o.keepalive) return 0;
  (o.output ? io.stderr : io.stdout).write(PRESS_CTRL_C);
  try {
    await Promise.race([s.ended, s.cancelled()]);
  } catch (err) {
    if (err instanceof SignalError) return 0;
    throw err;
  }
  return 0;
}
