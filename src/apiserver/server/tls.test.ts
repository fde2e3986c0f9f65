import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sansOf } from "../certs/pki.ts";
import { parseOptions } from "./options.ts";
import { loadTls } from "./tls.ts";

test("the generated serving certificate names the bind and advertise addresses, the kubernetes Service and every --tls-san; a changed --tls-san re-issues it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tls-san-"));
  try {
    const options = (argv: string[]) => {
      const r = parseOptions(["--data-dir", dir, "--bind-address", "127.0.0.1", ...argv]);
      return r.kind === "options" ? r.options : assert.fail(r.stderr);
    };
    const sans = sansOf((await loadTls(options(["--tls-san", "198.18.0.2,garden.example"]))).cert);
    for (const h of ["127.0.0.1", "localhost", "kubernetes.default.svc", "198.18.0.2", "garden.example"]) assert.ok(sans.includes(h), `${h} in ${sans.join(", ")}`);
    const again = sansOf((await loadTls(options([]))).cert);
    assert.ok(!again.includes("198.18.0.2") && !again.includes("garden.example"), again.join(", "));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
