// RSA key generation on a worker thread of its own (docs/maintenance-and-rotation.md#the-key-pool):
// the thread generates one key at a time with the synchronous call, so neither the event loop nor
// libuv's shared thread pool (file and DNS work) waits for it, and it runs with a lower CPU priority
// (a higher nice value, Linux: per thread) so refilling the pool yields to the work a rotation waits
// for. The private key crosses the thread boundary as PEM, in memory only.
import { createPrivateKey } from "node:crypto";
import { Worker } from "node:worker_threads";
import { type KeyPair, RSA_BITS, openSSHPublicKey } from "./keypair.ts";

/** Nice value of the generating thread: below normal priority, above idle-only. */
export const KEY_WORKER_NICE = 10;

/** The thread's code (CommonJS, evaluated as is: no loader, no TypeScript). */
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { generateKeyPairSync } = require("node:crypto");
const { setPriority } = require("node:os");
try { setPriority(workerData.nice); } catch {}
parentPort.on("message", (id) => {
  try {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: workerData.bits, publicExponent: 0x10001, privateKeyEncoding: { type: "pkcs1", format: "pem" } });
    parentPort.postMessage({ id, pem: privateKey });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

export interface KeyWorker {
  /** One fresh key pair, generated on the thread (one at a time; calls queue). */
  generate(): Promise<KeyPair>;
  /** Ends the thread; pending generations reject. */
  stop(): Promise<void>;
}

interface Pending {
  resolve: (pair: KeyPair) => void;
  reject: (err: Error) => void;
}

/** A worker thread generating RSA key pairs (`bits`, default 4096) at nice value `nice`. The thread starts on first use and is restarted after a crash. */
export function keyWorker(o: { bits?: number; nice?: number } = {}): KeyWorker {
  const bits = o.bits ?? RSA_BITS;
  const nice = o.nice ?? KEY_WORKER_NICE;
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let nextId = 0;
  let stopped = false;

  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const start = (): Worker => {
    // execArgv: [] keeps the parent's loader flags (tsx) out of a thread that needs none.
    const w = new Worker(SOURCE, { eval: true, workerData: { bits, nice }, execArgv: [], stdout: false, stderr: false });
    w.on("message", (m: { id: number; pem?: string; error?: string }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) w.unref();
      if (m.error !== undefined || m.pem === undefined) return p.reject(new Error(`RSA key generation failed: ${m.error ?? "no key"}`));
      try {
        p.resolve({ privateKey: m.pem, publicKey: openSSHPublicKey(createPrivateKey(m.pem)) });
      } catch (err) {
        p.reject(err as Error);
      }
    });
    w.on("error", (err) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`key generation thread failed: ${err.message}`));
    });
    w.on("exit", (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`key generation thread exited (${code})`));
    });
    return w;
  };

  return {
    generate() {
      if (stopped) return Promise.reject(new Error("key generation thread stopped"));
      worker ??= start();
      const w = worker;
      const id = nextId++;
      return new Promise<KeyPair>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // Referenced only while a generation is pending: an idle thread never keeps the process alive.
        w.ref();
        w.postMessage(id);
      });
    },
    async stop() {
      stopped = true;
      const w = worker;
      worker = undefined;
      failAll(new Error("key generation thread stopped"));
      if (w) await w.terminate();
    },
  };
}
