import assert from "node:assert/strict";
import { test } from "node:test";
import { measureFloor } from "./floor.ts";

test("the floor server answers every request and its CPU and the client's are measured", async () => {
  const f = await measureFloor(4, 2, 400);
  assert.ok(f.requestsPerSec > 10, `requests/s ${f.requestsPerSec}`);
  assert.ok(f.serverCpuMsPerRequest > 0 && f.serverCpuMsPerRequest < 50, `server CPU ${f.serverCpuMsPerRequest}`);
  assert.ok(f.clientCpuMsPerRequest > 0, `client CPU ${f.clientCpuMsPerRequest}`);
});
