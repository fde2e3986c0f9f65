// `gardenctl ssh`: the flow of docs/gardenctl-ssh.md#flow from validated flags to the session, with cleanup on every
// exit path. Returns the process exit code; writes `Error: <message>` for gardenctl's failures (one line per
// invalid flag).
import { accessSync, constants as fsConstants } from "node:fs";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import type { Client } from "../../../client/index.ts";
import { type Clock, realClock } from "../../../utils/clock.ts";
import { requireAgentKey } from "./agent.ts";
import { createOrReuseBastion, startKeepalive } from "./bastion.ts";
import { determineCIDRs } from "./cidr.ts";
import { PRESS_CTRL_C, type ConnectInfo, connectInfoDocument, connectInfoText } from "./connectinfo.ts";
import { CLIError, SignalError, errorMessage } from "./errors.ts";
import { type FallbackFlags, bastionPolicy, defaultNodeKnownHosts, nodePolicy } from "./hostkeys.ts";
import { type KeyPair, generateKeyPair, makePrivateDir, readPrivateKeyFile, readPublicKeyFile } from "./keys.ts";
import { Logger } from "./log.ts";
import { type NodeInfo, getNode, listNodes, nodeHost, nodeInfo, shootClient, writeNodeKeys } from "./nodes.ts";
import { OptionsError, type RawFlags, type SSHOptions, validateOptions } from "./options.ts";
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
  /** The clock of deadlines and waits (real time unless a test injects one). */
  clock?: Clock;
}

export async function runSSH(raw: RawFlags, positional: string[], command: string[], io: IO): Promise<number> {
  const log = new Logger(io.stderr, raw.v);
  const s = new Session(log);
  try {
    return await flow(s, raw, positional, command, io, log);
  } catch (err) {
    log.clearSpinner();
    if (err instanceof SignalError) return err.exitCode;
    const messages = err instanceof OptionsError ? err.problems : [errorMessage(err)];
    io.stderr.write(messages.map((m) => `Error: ${m}\n`).join(""));
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
  const clock = io.clock ?? realClock;
  const o: SSHOptions = validateOptions(raw, positional, command, io.env, io.tty, log);
  const givenPublicKey = await checkLocalPrerequisites(s, o, io.env);

  const config = loadConfig(o, io.env);
  const cidrs = await s.step(determineCIDRs({ cidrs: o.cidr, publicIpCommand: o.publicIpCommand, env: io.env, config: config.ssh, signal: s.cancel.signal }, log));
  const { client, gardenName } = gardenClient(o, config, io.env);
  s.onStop(() => client.close());
  const target = await s.step(resolveTarget(o, client, gardenName));
  const shoot = target.shoot;
  const shootName = shoot.metadata.name!;
  log.info("Preparing SSH access", { target: `${target.scope}/${shootName}`, garden: gardenName });
  if (shoot.spec.provider.workersSettings?.sshAccess?.enabled === false) throw new CLIError("node SSH access disabled, SSH not allowed");

  const dir = (s.dir = makePrivateDir(io.env));
  const keys = bastionKeys(s, o, dir, givenPublicKey);
  // Nodes (step 2) and node keys (step 3).
  const nodes = await findNodes(s, client, shoot, o, log);
  s.nodeKeyFiles = await s.step(writeNodeKeys(client, target.namespace, shootName, dir));

  // Bastion (steps 4-8).
  const ingress = cidrs.map((cidr) => ({ ipBlock: { cidr } }));
  const created = await s.step(createOrReuseBastion(client, { namespace: target.namespace, shootName, publicKey: keys.publicKey, ingress, name: o.bastionName }, log));
  const deadline = clock.nowMs() + o.waitTimeout;
  const ready = await readyBastion(s, client, created, o, log, clock);
  const b = bastionAddress(ready, o, keys);

  const bastionHop = bastionPolicy(dir, ready, o.bastionHost, o.bastionPort, fallbackFlags(o, raw, "bastion"), log);
  const nodeHop = nodePolicy(dir, nodes.targets, defaultNodeKnownHosts(gardenHome(io.env), shoot.metadata.uid ?? shootName), fallbackFlags(o, raw, "node"), log);
  if (o.skipAvailabilityCheck) log.info("Bastion is ready, skipping availability check");
  else await s.step(probeBastion(b.address, Number(o.bastionPort || "22"), deadline, log, s.cancel.signal, clock));
  log.info("Bastion host became available.", { address: b.ip && b.hostname ? `${b.ip} (${b.hostname})` : b.ip || b.hostname || b.address });

  const input: SSHCommandInput = {
    shell: o.shell,
    bastionAddress: b.address,
    bastionPort: o.bastionPort,
    bastionPrivateKeyFile: keys.privateKeyFile,
    bastionKnownHostsFiles: bastionHop.files,
    bastionStrictHostKeyChecking: bastionHop.strict,
    nodeKnownHostsFiles: nodeHop.files,
    nodeStrictHostKeyChecking: nodeHop.strict,
    nodePrivateKeyFiles: s.nodeKeyFiles,
    user: o.user,
    nodeHost: nodes.host,
    command: o.command,
  };
  const printed = printedCommand(input);
  if (!o.interactive) return connectInfo(s, o, io, input, printed, nodes.listed, { ...b, name: ready.metadata.name!, namespace: target.namespace });
  return interactiveSession(s, o, io, input, printed);
}

/** Local checks before any API call: the given key files (or an agent key) and ssh on PATH; returns the given public key. */
async function checkLocalPrerequisites(s: Session, o: SSHOptions, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  let givenPublicKey: string | undefined;
  if (o.publicKeyFile !== undefined) {
    givenPublicKey = readPublicKeyFile(o.publicKeyFile);
    if (o.privateKeyFile !== undefined) readPrivateKeyFile(o.privateKeyFile);
    else await s.step(requireAgentKey(env));
  }
  if (!onPath("ssh", env)) throw new CLIError("ssh client not found in PATH; install an OpenSSH client");
  return givenPublicKey;
}

/** The bastion key pair: the given files, else a fresh pair in the private directory. */
function bastionKeys(s: Session, o: SSHOptions, dir: string, givenPublicKey: string | undefined): KeyPair {
  const keys = givenPublicKey !== undefined ? { publicKey: givenPublicKey, publicKeyFile: o.publicKeyFile!, privateKeyFile: o.privateKeyFile } : generateKeyPair(dir, o.keyType);
  s.publicKeyFile = keys.publicKeyFile;
  s.privateKeyFile = keys.privateKeyFile;
  return keys;
}

interface FoundNodes {
  /** All nodes, when no node name is given. */
  listed: NodeInfo[];
  /** The ssh target: the node's address, NODE_NAME for a missing node, or the placeholder. */
  host: string;
  /** The nodes whose host keys are pinned. */
  targets: { info: NodeInfo; host?: string }[];
}

async function findNodes(s: Session, client: Client, shoot: Shoot, o: SSHOptions, log: Logger): Promise<FoundNodes> {
  const nodesClient = await s.step(shootClient(client, shoot));
  s.onStop(() => nodesClient.close());
  if (o.nodeName === undefined) {
    const listed = await s.step(listNodes(nodesClient));
    return { listed, host: NODE_PLACEHOLDER, targets: listed.map((info) => ({ info })) };
  }
  const node = await s.step(getNode(nodesClient, o.nodeName, log));
  if (!node) return { listed: [], host: o.nodeName, targets: [] };
  const host = nodeHost(node);
  return { listed: [], host, targets: [{ info: nodeInfo(node), host }] };
}

/** Starts the keepalive, waits for BastionReady and then watches the Bastion, ending the session when it goes. */
async function readyBastion(s: Session, client: Client, created: Bastion, o: SSHOptions, log: Logger, clock: Clock): Promise<Bastion> {
  const namespace = created.metadata.namespace!;
  const name = created.metadata.name!;
  const key = `${namespace}/${name}`;
  s.bastion = { client, namespace, name };
  s.keepBastion = o.keepBastion;
  if (o.keepalive) s.onStop(startKeepalive(client, namespace, name, o.keepaliveInterval, log, (m) => s.end(m)));
  const spinner = o.tty && o.interactive;
  const ready = await s.step(waitForReady(client, created, { timeoutMs: o.waitTimeout, bastionHost: o.bastionHost, spinner, signal: s.cancel.signal, now: () => clock.nowMs() }, log));
  const watchStop = new AbortController();
  s.onStop(() => watchStop.abort());
  const gone = (b: Bastion | undefined): void => {
    if (b !== undefined && !b.metadata.deletionTimestamp) return;
    watchStop.abort();
    log.info("Can't keep bastion alive. Bastion is already gone.");
    s.end(`bastion "${key}" is gone (deleted or expired); ending the session`);
  };
  void watchBastion(client, namespace, name, ready.metadata.resourceVersion, gone, (err) => s.end(`failed to watch bastion "${key}": ${errorMessage(err)}`), watchStop.signal);
  return ready;
}

interface BastionAddress {
  ip: string;
  hostname: string;
  /** --bastion-host, else the ingress IP, else its hostname. */
  address: string;
  keys: KeyPair;
}

function bastionAddress(ready: Bastion, o: SSHOptions, keys: KeyPair): BastionAddress {
  const ip = ready.status?.ingress?.ip ?? "";
  const hostname = ready.status?.ingress?.hostname ?? "";
  return { ip, hostname, address: o.bastionHost ?? (ip || hostname), keys };
}

/** The known_hosts fallback of one hop: explicit when files or the strict flag were given. */
function fallbackFlags(o: SSHOptions, raw: RawFlags, hop: "bastion" | "node"): FallbackFlags {
  const files = hop === "bastion" ? o.bastionUserKnownHostsFile : o.nodeUserKnownHostsFile;
  const rawStrict = hop === "bastion" ? raw.bastionStrictHostKeyChecking : raw.nodeStrictHostKeyChecking;
  return { files, strict: hop === "bastion" ? o.bastionStrictHostKeyChecking : o.nodeStrictHostKeyChecking, explicit: files.length > 0 || rawStrict !== undefined, tty: o.tty };
}

/** Runs ssh until it exits (its exit code) or the session ends (the session's error, after ssh is stopped). */
async function interactiveSession(s: Session, o: SSHOptions, io: IO, input: SSHCommandInput, printed: string): Promise<number> {
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

async function connectInfo(s: Session, o: SSHOptions, io: IO, input: SSHCommandInput, printed: string, nodes: NodeInfo[], b: BastionAddress & { name: string; namespace: string }): Promise<number> {
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
