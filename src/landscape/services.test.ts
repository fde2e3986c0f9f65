import assert from "node:assert/strict";
import { test } from "node:test";
import { Names } from "../host/names.ts";
import { renderTable } from "../host/nft-render.ts";
import { apiServerServiceTable } from "./services.ts";

test("a node network's router sends the API server address's port 443 from its nodes to the cluster's API server port, nothing else", () => {
  const text = renderTable(apiServerServiceTable({ names: new Names("gl-") }, "shoot--local--local", "198.18.0.2", 7445));
  assert.match(text, /type nat hook prerouting priority dstnat; policy accept;/);
  assert.match(text, /iifname "br-nodes" ip daddr 198\.18\.0\.2 tcp dport 443 dnat to 198\.18\.0\.2:7445 comment "kubernetes\.default\.svc"/);
  assert.equal(text.match(/dnat/g)?.length, 1);
});
