import assert from "node:assert/strict";
import { test } from "node:test";
import { ManagementError, parseStatus, queryStatus } from "./management.ts";
import { fakeManagement, statusLines } from "./testing-management.ts";

test("status 2 lists the connected clients with addresses, bytes and start", () => {
  const s = parseStatus(statusLines([{ cn: "vpn-shoot-client", rx: 5, tx: 7, since: 42 }]));
  assert.equal(s.title, "OpenVPN 2.6.3 x86_64-pc-linux-gnu");
  assert.deepEqual(s.clients, [{ commonName: "vpn-shoot-client", realAddress: "198.19.0.3:40000", virtualAddress: "192.168.123.2", bytesReceived: 5, bytesSent: 7, connectedSince: 42 }]);
  assert.deepEqual(parseStatus([">CLIENT:ESTABLISHED,0", ...statusLines([])]).clients, [], "notifications are skipped");
});

test("unknown line types, short client lines and non-numbers are errors", () => {
  assert.throws(() => parseStatus(["OpenVPN CLIENT LIST"]), ManagementError);
  assert.throws(() => parseStatus(["CLIENT_LIST,a,b"]), ManagementError);
  assert.throws(() => parseStatus(["CLIENT_LIST,a,1.2.3.4:5,192.168.123.2,,x,0,d,0"]), ManagementError);
});

test("queryStatus talks to the socket; a silent or absent server is an error within the timeout", async () => {
  const m = await fakeManagement();
  try {
    m.status = statusLines([{ cn: "vpn-shoot-client" }]);
    assert.equal((await queryStatus(m.path)).clients.length, 1);
    m.status = undefined;
    await assert.rejects(queryStatus(m.path, 100), /within 100 ms/);
  } finally {
    await m.close();
  }
  await assert.rejects(queryStatus(m.path, 1000), ManagementError);
});
