import assert from "node:assert/strict";
import { test } from "node:test";
import { terminalConfigFromFile } from "./config.ts";

test("the terminal configuration file names seed hosts, the garden terminal host, images and the ready timeout", () => {
  assert.deepEqual(terminalConfigFromFile({ seedHosts: { local: { secretRef: { namespace: "garden", name: "seed-local-terminal-host" } } }, gardenTerminalHost: { seedRef: { name: "local" } }, container: { image: "busybox:1.36" }, readyTimeoutSeconds: 45 }), {
    seedHosts: { local: { secretRef: { namespace: "garden", name: "seed-local-terminal-host" } } },
    gardenTerminalHost: { seedRef: { name: "local" } },
    container: { image: "busybox:1.36" },
    readyTimeoutSeconds: 45,
  });
  assert.deepEqual(terminalConfigFromFile({ gardenTerminalHost: { shootRef: { name: "host" } } }), { gardenTerminalHost: { shootRef: { namespace: "garden", name: "host" } } });
});

test("typos and malformed entries are errors, not a seed silently without host", () => {
  const bad: [unknown, RegExp][] = [
    [[], /must be a mapping/],
    [{ seedHost: {} }, /unknown terminal configuration key "seedHost"/],
    [{ seedHosts: { local: { secretRef: { name: "x" } } } }, /seedHosts\.local: needs secretRef with a namespace and a name/],
    [{ seedHosts: { "Local/..": { secretRef: { namespace: "garden", name: "x" } } } }, /needs secretRef/],
    [{ gardenTerminalHost: {} }, /gardenTerminalHost needs seedRef\.name or shootRef\.name/],
    [{ gardenApiServerUrl: "http://x" }, /must be an https URL/],
    [{ container: { image: "" } }, /container needs an image/],
    [{ readyTimeoutSeconds: 0 }, /from 1 to 600/],
  ];
  for (const [doc, re] of bad) assert.throws(() => terminalConfigFromFile(doc), re, JSON.stringify(doc));
});
