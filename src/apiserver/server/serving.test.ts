import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type ClientHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ensurePki, type Pki } from "../certs/pki.ts";
import { pollFor } from "../../utils/poll.ts";
import { listenSecure, type Listener } from "./serving.ts";

/** A server whose /hold requests are answered only when release() is called. */
async function serve(pki: Pki, idleMs: number) {
  const held: (() => void)[] = [];
  const listener = await listenSecure(
    {
      tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, ca: [pki.ca.certPem] },
      idleMs,
      request: (req, res) => {
        if (req.url === "/hold") {
          res.writeHead(200);
          res.flushHeaders();
          held.push(() => res.end("done"));
        } else res.end("ok");
      },
      upgrade: (_req, socket) => socket.destroy(),
      tlsClientError: () => {},
    },
    0,
    "127.0.0.1",
  );
  return { listener, held, release: () => held.splice(0).forEach((f) => f()) };
}

function session(pki: Pki, l: Listener): Promise<ClientHttp2Session> {
  const s = connect(`https://127.0.0.1:${l.port}`, { ca: pki.ca.certPem, servername: "localhost" });
  s.on("error", () => {});
  return new Promise((resolve, reject) => s.once("connect", () => resolve(s)).once("error", reject));
}

function get(s: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const st = s.request({ ":path": path });
    st.on("response", (h) => resolve(Number(h[":status"])));
    st.on("error", reject);
    st.resume();
  });
}

void describe("the HTTP/2 and HTTP/1.1 listener", () => {
  let dir: string;
  let pki: Pki;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "serving-"));
    pki = await ensurePki(dir, { hosts: ["127.0.0.1"] });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it("closes a session that has had no stream for the idle time, and not one whose stream is open", async () => {
    const srv = await serve(pki, 300);
    try {
      const idle = await session(pki, srv.listener);
      const busy = await session(pki, srv.listener);
      assert.equal(await get(idle, "/"), 200);
      assert.equal(await get(busy, "/hold"), 200);
      let goaway = false;
      idle.once("goaway", () => (goaway = true));
      await pollFor("the idle session to be closed", () => idle.closed || idle.destroyed);
      assert.ok(goaway, "closed with GOAWAY");
      // The sweep that closed the idle one saw the busy one too: it stays, its stream open.
      assert.ok(!busy.closed && !busy.destroyed);
      srv.release();
      busy.close();
    } finally {
      await srv.listener.close(1000);
    }
  });

  void it("on close sends GOAWAY to every session, lets a running stream go on up to the drain time, then cuts it", async () => {
    const srv = await serve(pki, 60_000);
    const idle = await session(pki, srv.listener);
    const running = await session(pki, srv.listener);
    assert.equal(await get(idle, "/"), 200);
    const goaways = { idle: false, running: false };
    idle.once("goaway", () => (goaways.idle = true));
    running.once("goaway", () => (goaways.running = true));
    const held = running.request({ ":path": "/hold" });
    let body = "";
    held.on("data", (d: Buffer) => (body += String(d)));
    held.on("error", () => {});
    await new Promise((resolve) => held.once("response", resolve));
    const started = Date.now();
    await srv.listener.close(300);
    assert.ok(Date.now() - started >= 250, `closed after ${Date.now() - started} ms`);
    await pollFor("both sessions to be gone", () => (idle.closed || idle.destroyed) && (running.closed || running.destroyed));
    assert.deepEqual(goaways, { idle: true, running: true });
    assert.equal(body, "", "the held answer never finished");
  });
});
