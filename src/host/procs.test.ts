import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { compressIPv6, isAlive, listeningTcp, readCmdline, readStartTime, ref } from "./procs.ts";

test("a process is named by pid and start time", () => {
  const me = ref(process.pid);
  assert.ok(me);
  assert.equal(me.startTime, readStartTime(process.pid));
  assert.ok(isAlive(me));
  assert.ok(!isAlive({ ...me, startTime: String(Number(me.startTime) + 1) }));
  assert.ok(readCmdline(process.pid).length > 0);
  assert.equal(ref(2 ** 22 + 7), undefined);
});

test("listening TCP sockets of a process's network namespace are read from /proc", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as { port: number }).port;
    assert.ok(listeningTcp(process.pid).some((s) => s.address === "127.0.0.1" && s.port === port));
  } finally {
    server.close();
  }
});

test("IPv6 groups are compressed like inet_ntop", () => {
  assert.equal(compressIPv6(["fd00", "0", "0", "0", "0", "0", "0", "1"]), "fd00::1");
  assert.equal(compressIPv6(["0", "0", "0", "0", "0", "0", "0", "0"]), "::");
  assert.equal(compressIPv6(["1", "0", "2", "0", "0", "3", "0", "4"]), "1:0:2::3:0:4");
  assert.equal(compressIPv6(["1", "2", "3", "4", "5", "6", "7", "8"]), "1:2:3:4:5:6:7:8");
});
