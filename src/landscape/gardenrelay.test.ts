import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { startRelay } from "./gardenrelay.ts";

/** An echo server that counts the connections it accepted. */
let target: Server;
let accepted = 0;
before(async () => {
  target = createServer((s) => {
    accepted++;
    s.pipe(s);
  });
  target.listen(0, "127.0.0.1");
  await once(target, "listening");
});
after(() => target.close());
const targetPort = (): number => (target.address() as { port: number }).port;

async function dial(port: number): Promise<Socket> {
  const s = connect({ host: "127.0.0.1", port });
  await once(s, "connect");
  return s;
}

const closed = (s: Socket): Promise<unknown> => (s.closed ? Promise.resolve() : once(s, "close"));

test("an admitted source's bytes reach the target and its answers come back; stop closes open connections", async () => {
  const relay = await startRelay({ listen: { host: "127.0.0.1", port: 0 }, target: { host: "127.0.0.1", port: targetPort() }, allowed: ["127.0.0.1"] });
  const s = await dial(relay.port);
  s.write("ping");
  const [echo] = (await once(s, "data")) as [Buffer];
  assert.equal(echo.toString(), "ping");
  assert.equal(relay.connections(), 1);
  await relay.stop();
  await closed(s);
  assert.equal(relay.connections(), 0);
});

test("a source not admitted is closed and never reaches the target", async () => {
  const relay = await startRelay({ listen: { host: "127.0.0.1", port: 0 }, target: { host: "127.0.0.1", port: targetPort() }, allowed: ["198.18.0.9"] });
  try {
    const before = accepted;
    const s = await dial(relay.port);
    s.on("error", () => undefined);
    s.write("ping");
    await closed(s);
    assert.equal(accepted, before);
    assert.equal(relay.connections(), 0);
  } finally {
    await relay.stop();
  }
});

test("at most maxConnections at once: one more is closed, and a target that is down closes the client", async () => {
  const relay = await startRelay({ listen: { host: "127.0.0.1", port: 0 }, target: { host: "127.0.0.1", port: targetPort() }, allowed: ["127.0.0.1"], maxConnections: 1 });
  const first = await dial(relay.port);
  try {
    first.write("a");
    await once(first, "data");
    const second = await dial(relay.port);
    second.on("error", () => undefined);
    await closed(second);
    assert.equal(relay.connections(), 1);
  } finally {
    first.destroy();
    await relay.stop();
  }
  // Nothing listens on the port of a closed server.
  const gone = createServer();
  gone.listen(0, "127.0.0.1");
  await once(gone, "listening");
  const port = (gone.address() as { port: number }).port;
  await new Promise<void>((r) => gone.close(() => r()));
  const down = await startRelay({ listen: { host: "127.0.0.1", port: 0 }, target: { host: "127.0.0.1", port }, allowed: ["127.0.0.1"] });
  try {
    const s = await dial(down.port);
    s.on("error", () => undefined);
    await closed(s);
    assert.equal(down.connections(), 0);
  } finally {
    await down.stop();
  }
});
