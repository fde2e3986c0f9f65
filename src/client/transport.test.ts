import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeConfigTransport } from "./transport.ts";

async function serve(handler: http.RequestListener, keepAliveTimeoutMs: number): Promise<{ server: http.Server; transport: KubeConfigTransport; sockets: Socket[] }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = keepAliveTimeoutMs;
  const sockets: Socket[] = [];
  server.on("connection", (s: Socket) => sockets.push(s));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "c", cluster: "c", user: "u" }],
    currentContext: "c",
  });
  return { server, transport: new KubeConfigTransport(kc), sockets };
}

const stop = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

test("an idle keep-alive socket is closed by the client before the server's announced timeout", async (t) => {
  const { server, transport, sockets } = await serve((_req, res) => res.end("{}"), 2_000);
  t.after(() => stop(server));
  t.after(() => transport.close());
  await transport.request({ method: "GET", path: "/a" });
  const socket = sockets[0]!;
  // The server destroys its idle socket at 2 s without reading an end; the client's FIN ('end') comes first.
  const first = await Promise.race([once(socket, "end").then(() => "client closed"), once(socket, "close").then(() => "server closed")]);
  assert.equal(first, "client closed");
});

test("a GET on a reused socket that the server resets is sent again on a new one; a write is not", async (t) => {
  let served = 0;
  const { server, transport } = await serve((req, res) => {
    served++;
    // The second request on a connection finds it closing, as when the server's idle timer fires at that moment.
    if ((req.socket as Socket & { seen?: boolean }).seen) return req.socket.destroy();
    (req.socket as Socket & { seen?: boolean }).seen = true;
    res.end(JSON.stringify({ n: served }));
  }, 60_000);
  t.after(() => stop(server));
  t.after(() => transport.close());
  await transport.request({ method: "GET", path: "/a" });
  assert.deepEqual(await transport.request({ method: "GET", path: "/b" }), { n: 3 }, "resent on a new connection");
  await assert.rejects(transport.request({ method: "POST", path: "/c", body: {} }), { code: "ECONNRESET" });
});

test("a request's own headers are sent beside the credentials", async (t) => {
  const { server, transport } = await serve((req, res) => res.end(JSON.stringify({ csrf: req.headers["x-requested-with"] ?? null, auth: req.headers.authorization })), 60_000);
  t.after(() => stop(server));
  t.after(() => transport.close());
  assert.deepEqual(await transport.request({ method: "POST", path: "/api", body: {}, headers: { "x-requested-with": "XMLHttpRequest" } }), { csrf: "XMLHttpRequest", auth: "Bearer t" });
  assert.deepEqual(await transport.request({ method: "GET", path: "/api" }), { csrf: null, auth: "Bearer t" });
});
