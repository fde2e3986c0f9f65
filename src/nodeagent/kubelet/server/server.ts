// The kubelet's HTTPS endpoint (port 10250) as the API server uses it: /exec, /attach (WebSocket channel
// protocol, v5 and v4; SPDY is refused) and /containerLogs, for pods bound to this node. Mutual TLS:
// only the API server's kubelet-client identity is served; any other client gets 401 or 403 before the
// request is looked at. See docs/exec-attach-logs.md.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { StatusError, newBadRequest, newNotFound, newPathNotFound, newTooManyRequests, toStatusError } from "../../../apimachinery/errors.ts";
import { SUPPORTED_PROTOCOLS, negotiateProtocol, offeredProtocols } from "../../../apimachinery/remotecommand/protocol.ts";
import type { ContainerStream } from "../../../host/containers.ts";
import type { Pod } from "../runtime/types.ts";
import { checkClient } from "./auth.ts";
import { parseLogOptions, serveLogs } from "./logs.ts";
import { bridge, endWithFailure, firstResize, parseStreamOptions, sendReadyWhenSettled, type StreamOptions } from "./streams.ts";
import { DEFAULT_KUBELET_CLIENT_USER, type KubeletServerOptions } from "./types.ts";
import { trackConnections } from "../../../utils/connections.ts";

export { DEFAULT_KUBELET_CLIENT_USER, type KubeletPods, type KubeletServerOptions } from "./types.ts";

export interface KubeletServer {
  port: number;
  /** Serves a renewed certificate to new connections. */
  setCertificate(certPem: string, keyPem: string): void;
  /** Stops accepting and ends every open stream. */
  close(): Promise<void>;
}

interface Target {
  kind: "exec" | "attach" | "containerLogs";
  namespace: string;
  pod: string;
  container: string;
}

/** How long `exec -it` waits for the client's terminal size before starting the command anyway. */
const TERMINAL_SIZE_WAIT_MS = 1000;
const SEGMENT = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function parseTarget(url: URL): Target {
  const parts = url.pathname.split("/").slice(1).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return "";
    }
  });
  const [kind, namespace, pod, container] = parts;
  if (parts.length !== 4 || (kind !== "exec" && kind !== "attach" && kind !== "containerLogs")) throw newPathNotFound();
  if (![namespace, pod, container].every((s) => s !== undefined && SEGMENT.test(s))) throw newPathNotFound();
  return { kind, namespace: namespace!, pod: pod!, container: container! };
}

function writeError(res: ServerResponse, err: StatusError): void {
  if (res.headersSent) return void res.destroy();
  const body = JSON.stringify(err.toStatus());
  res.writeHead(err.code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function writeRawError(socket: Duplex, err: StatusError): void {
  if (socket.destroyed || !socket.writable) return;
  const body = JSON.stringify(err.toStatus());
  socket.end(`HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** A runtime error for a container that cannot be entered now: the client's problem, not the server's. */
function runtimeError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  return newBadRequest(err instanceof Error ? err.message : String(err));
}

export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const users = options.allowedUsers ?? [DEFAULT_KUBELET_CLIENT_USER];
  const groups = options.allowedGroups ?? [];
  const maxStreams = options.maxStreams ?? 100;
  const onError = options.onError ?? ((err: unknown, what: string) => process.stderr.write(`kubelet server: ${what}: ${String(err)}\n`));
  const { kubelet } = options;
  let streams = 0;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024, handleProtocols: (offered) => negotiateProtocol(offered) ?? false });

  const podOf = (t: Target): Pod => {
    const pod = kubelet.podByName(t.namespace, t.pod);
    if (!pod) throw newNotFound({ group: "", resource: "pods" }, t.pod);
    const known = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].some((c) => c.name === t.container);
    if (!known) throw newNotFound({ group: "", resource: "containers" }, t.container);
    return pod;
  };
  const admit = (req: IncomingMessage): Target => {
    const denied = checkClient(req, users, groups);
    if (denied) throw denied;
    const t = parseTarget(new URL(req.url ?? "/", "https://kubelet.local"));
    if (streams >= maxStreams) throw newTooManyRequests("too many concurrent streams on this kubelet", 1);
    return t;
  };

  async function request(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t = admit(req);
    if (t.kind !== "containerLogs") throw newBadRequest("Upgrade request required");
    if (req.method !== "GET" && req.method !== "HEAD") throw new StatusError(405, "MethodNotAllowed", `${req.method ?? ""} is not supported for container logs`);
    const o = parseLogOptions(new URL(req.url ?? "/", "https://kubelet.local").searchParams);
    const pod = podOf(t);
    streams++;
    try {
      await serveLogs(res, kubelet, pod, t.container, o).catch((err: unknown) => {
        throw runtimeError(err);
      });
    } finally {
      streams--;
    }
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const t = admit(req);
    if (t.kind === "containerLogs") throw newBadRequest("container logs are not served over an upgraded connection");
    const o = parseStreamOptions(t.kind, new URL(req.url ?? "/", "https://kubelet.local").searchParams);
    const pod = podOf(t);
    if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      // A client falling back to SPDY after a failed WebSocket attempt should still see why that failed.
      const status = await kubelet.runtime.status(pod);
      const c = [...status.containerStatuses, ...status.initContainerStatuses].find((x) => x.name === t.container);
      if (!c?.state.running) throw newBadRequest(`container ${t.container} is not running`);
      throw newBadRequest(`SPDY is not supported: ${t.kind} is served over WebSocket only (${SUPPORTED_PROTOCOLS.join(", ")}); use kubectl 1.30 or later or another WebSocket client`);
    }
    const offered = offeredProtocols(req.headers["sec-websocket-protocol"]);
    const protocol = negotiateProtocol(offered);
    if (!protocol) throw newBadRequest(`requested protocol(s) are not supported: [${offered.join(" ")}]; supported protocols: [${SUPPORTED_PROTOCOLS.join(" ")}]`);
    if (t.kind === "exec" && o.tty) return execInTerminal(req, socket, head, protocol, pod, t.container, o);
    let stream: ContainerStream;
    try {
      stream = t.kind === "exec" ? await kubelet.runtime.exec(pod, t.container, o.command, { tty: o.tty, stdin: o.stdin }) : await kubelet.runtime.attach(pod, t.container);
    } catch (err) {
      throw runtimeError(err);
    }
    if (socket.destroyed) return stream.close();
    streams++;
    wss.handleUpgrade(req, socket, head, (ws) => {
      bridge(ws, protocol, stream, o, t.kind as "exec" | "attach")
        .catch((err: unknown) => onError(err, t.kind))
        .finally(() => streams--);
    });
  }

  /**
   * `exec -it`: the command starts only once the client's terminal size is known (its first resize, or
   * after TERMINAL_SIZE_WAIT_MS), so the shell's first `stty size` is the client's. Refusals that need
   * no process still come as HTTP errors before the upgrade.
   */
  async function execInTerminal(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, pod: Pod, container: string, o: StreamOptions): Promise<void> {
    await kubelet.runtime.checkExec(pod, container).catch((err: unknown) => {
      throw runtimeError(err);
    });
    if (socket.destroyed) return;
    streams++;
    wss.handleUpgrade(req, socket, head, (ws) => {
      sendReadyWhenSettled(ws, o);
      const run = async () => {
        const { size, early } = await firstResize(ws, TERMINAL_SIZE_WAIT_MS);
        if (ws.readyState !== ws.OPEN) return;
        let stream: ContainerStream;
        try {
          stream = await kubelet.runtime.exec(pod, container, o.command, { tty: true, stdin: o.stdin, ...(size ? { size } : {}) });
        } catch (err) {
          return endWithFailure(ws, "exec", err);
        }
        if (ws.readyState !== ws.OPEN) return stream.close();
        await bridge(ws, protocol, stream, o, "exec", { early });
      };
      run()
        .catch((err: unknown) => onError(err, "exec"))
        .finally(() => streams--);
    });
  }

  const server: Server = createServer({ cert: options.certPem, key: options.keyPem, ca: options.clientCAPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    request(req, res).catch((err: unknown) => {
      if (!(err instanceof StatusError)) onError(err, "request");
      writeError(res, toStatusError(err));
    });
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    upgrade(req, socket, head).catch((err: unknown) => {
      if (!(err instanceof StatusError)) onError(err, "upgrade");
      writeRawError(socket, toStatusError(err));
    });
  });
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 10250, options.address ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const connections = trackConnections(server);
  return {
    port: (server.address() as AddressInfo).port,
    setCertificate(certPem, keyPem) {
      server.setSecureContext({ cert: certPem, key: keyPem, ca: options.clientCAPem });
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await connections.close();
    },
  };
}
