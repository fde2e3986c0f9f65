// A stand-in kubelet for the terminal integration tests: HTTPS with a serving certificate from the
// host cluster's CA (as the API server verifies kubelets), serving `/attach/<ns>/<pod>/<container>`
// over v5/v4.channel.k8s.io. Keystrokes are echoed as output; a resize answers `size <W>x<H>`; each
// attach greets with `attached <ns>/<pod>`. Node `standin` names it (InternalIP 127.0.0.1 and the
// port), so the API server's pods/attach of a pod bound there reaches it.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { RESIZE, STDIN, STDOUT, decodeFrame, encodeFrame } from "../../../src/apimachinery/remotecommand/protocol.ts";
import { issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";
import { Pods } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/client.ts";
import { resourcePath } from "../../../src/client/resource.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";

export const NODE = "standin";

export interface StandinKubelet {
  /** The attach paths the kubelet was asked for. */
  attaches: string[];
  /** Binds a pod to the stand-in node (as the scheduler would). */
  bind(namespace: string, pod: string): Promise<void>;
  close(): Promise<void>;
}

export async function startStandinKubelet(admin: Client, ca: { certPem: string; keyPem: string }): Promise<StandinKubelet> {
  const cert = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  const attaches: string[] = [];
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => (p.has("v5.channel.k8s.io") ? "v5.channel.k8s.io" : (p.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false)) });
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "https://x").pathname;
    const m = /^\/attach\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
    if (!m) return void socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
    attaches.push(path);
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(encodeFrame(STDOUT, `attached ${m[1]}/${m[2]}\r\n`));
      ws.on("message", (data: Buffer) => {
        const f = decodeFrame(data);
        if (f.channel === STDIN && f.payload.length) ws.send(encodeFrame(STDOUT, f.payload));
        if (f.channel === RESIZE) {
          const s = JSON.parse(f.payload.toString()) as { Width: number; Height: number };
          ws.send(encodeFrame(STDOUT, `size ${s.Width}x${s.Height}\r\n`));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await admin.create(Nodes, { metadata: { name: NODE } });
  await admin.patchStatus(Nodes, { name: NODE }, { type: "merge", body: { status: { addresses: [{ type: "InternalIP", address: "127.0.0.1" }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } } });
  return {
    attaches,
    async bind(namespace, pod) {
      await admin.transport.request({
        method: "POST",
        path: resourcePath(Pods, namespace, pod, "binding"),
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: pod, namespace }, target: { apiVersion: "v1", kind: "Node", name: NODE } },
      });
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
