// A bare HTTPS server for benchmarks: a script of plain JavaScript run by `node -e` in its own
// process, given a serving certificate in BARE_TLS ({ key, cert } as JSON). It prints its port (and
// anything else it reports, space-separated) on the first line of stdout and exits when its stdin
// closes, so it goes with the benchmark even when that is killed. The caller POSTs a small
// ConfigMap as the benchmark's creates do, over HTTP/2 sessions, and expects 201.
import { spawn } from "node:child_process";
import { createCertificateAuthority, issueServingCertificate } from "../../src/apiserver/certs/issue.ts";
import { expectStatus, h2Caller } from "./client.ts";

export interface BareServer {
  pid: number;
  /** What the server printed after its port, split at spaces. */
  reported: string[];
  /** One create: resolves on the 201. */
  call(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `script` (`what` names it in errors) with `env` beside BARE_TLS, and `sessions` HTTP/2 sessions to it. */
export async function startBareServer(what: string, script: string, env: Record<string, string>, sessions: number): Promise<BareServer> {
  const ca = await createCertificateAuthority();
  const tls = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  const child = spawn(process.execPath, ["-e", script], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env, BARE_TLS: JSON.stringify({ key: tls.keyPem, cert: tls.certPem }) },
  });
  const exited = async () => {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
  };
  try {
    const [port = "", ...reported] = await new Promise<string[]>((resolve, reject) => {
      child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim().split(" ")));
      child.once("exit", (code) => reject(new Error(`${what} exited with ${code}`)));
    });
    const caller = h2Caller({ server: `https://127.0.0.1:${port}`, caPem: ca.certPem }, sessions);
    let seq = 0;
    return {
      pid: child.pid!,
      reported,
      call: async () => {
        const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `b-${seq++}`, namespace: "bench" }, data: { k: "v" } };
        expectStatus(await caller.call("POST", "/api/v1/namespaces/bench/configmaps", body), [201], what);
      },
      stop: async () => {
        caller.close();
        await exited();
      },
    };
  } catch (err) {
    await exited();
    throw err;
  }
}
