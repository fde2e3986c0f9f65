// Starting a real API server (SQLite or etcd storage) for the controller-runtime suites, and
// small waiting helpers. The server is the real binary in a child process, so tests can restart
// and kill it exactly as an operator would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlreadyExists } from "../../../src/apimachinery/errors.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { etcdAvailable, startEtcd, type RunningEtcd } from "../../../src/host/etcd.ts";
import { type ApiServerProcess, startApiServerProcess } from "../../support/apiserver.ts";

export { eventually } from "../../support/http.ts";
export { advance, stepUntil } from "../../../src/utils/poll.ts";

export type StorageKind = "sqlite" | "etcd";

export interface TestServer {
  storage: StorageKind;
  kubeconfig: string;
  server: ApiServerProcess;
  /** A client for the test's own reads and writes (not the manager's). */
  client: Client;
  dispose(): Promise<void>;
}

export function storageAvailable(storage: StorageKind): boolean {
  return storage === "sqlite" || etcdAvailable();
}

/** Starts etcd when needed, then the API server binary; extraArgs go to the server verbatim. */
export async function startTestServer(storage: StorageKind, extraArgs: string[] = []): Promise<TestServer> {
  let etcd: RunningEtcd | undefined;
  let etcdDir: string | undefined;
  if (storage === "etcd") {
    etcdDir = mkdtempSync(join(tmpdir(), "cr-etcd-"));
    etcd = await startEtcd({ dataDir: etcdDir });
  }
  let server: ApiServerProcess;
  try {
    server = await startApiServerProcess({ storage, etcdEndpoint: etcd?.endpoint, extraArgs });
  } catch (err) {
    await etcd?.stop();
    if (etcdDir) rmSync(etcdDir, { recursive: true, force: true });
    throw err;
  }
  const client = Client.fromKubeconfigFile(server.kubeconfig, { fieldManager: "controllerruntime-test" });
  return {
    storage,
    kubeconfig: server.kubeconfig,
    server,
    client,
    dispose: async () => {
      client.close();
      try {
        await server.dispose();
      } finally {
        await etcd?.stop();
        if (etcdDir) rmSync(etcdDir, { recursive: true, force: true });
      }
    },
  };
}

export async function ensureNamespace(client: Client, name: string): Promise<void> {
  try {
    await client.create(Namespaces, { metadata: { name } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
