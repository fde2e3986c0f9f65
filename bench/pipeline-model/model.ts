// A model of the durable create path, to ask what would raise creates/s before building it
// (docs/high-availability.md#what-10x-needs). A bare HTTP/2 server (its own process) answers each
// POSTed object the way the SQLite-backed API server does, with the API work replaced by a fixed
// busy loop: requests are started a few per event-loop turn, the objects of a turn are appended to
// a file as one group, and each group is answered once an fdatasync of that file that began after
// its write returned. Varied: whether the work and the syncs run on the thread that serves HTTP/2
// or on a second thread, and how many syncs may run at once (each on its own descriptor; a group
// is answered only after every earlier group was), or none at all as a bound (a turn's objects
// answered at its end).
import { startBareServer } from "../apiserver/bare-server.ts";
import { threadCpuMs } from "../apiserver/cpu-budget.ts";
import { processCpuMs } from "../apiserver/phases.ts";

export interface ModelOptions {
  /** CPU of the API work per request, µs (a busy loop). */
  workUs: number;
  /** The work and the syncs on a second thread (worker_threads) instead of the serving one. */
  split: boolean;
  /** Syncs that may run at once; 0: none, a turn's objects are answered at its end (not durable). */
  syncs: number;
  /** Requests whose work starts per event-loop turn. */
  perTurn: number;
}

// Plain JavaScript for `node -e`; the work thread runs the same text as a worker (eval).
const LOGIC = `
const fs = require("node:fs");
function burn(us) { const end = performance.now() + us / 1000; while (performance.now() < end); }
function makeLogic(o, answer) {
  const fds = [fs.openSync(o.file, "a")];
  for (let i = 1; i < o.syncs; i++) fds.push(fs.openSync(o.file, "r"));
  const free = fds.slice(), inFlight = [], queue = [];
  let pending = [], armed = false;
  function sync() {
    if (o.syncs === 0) {
      for (const [id, text] of pending.splice(0)) answer(id, text);
      return;
    }
    if (free.length === 0 || pending.length === 0) return;
    const fd = free.pop(), s = { batch: pending, done: false };
    pending = [];
    inFlight.push(s);
    fs.fdatasync(fd, (err) => {
      if (err) throw err;
      free.push(fd);
      s.done = true;
      while (inFlight.length > 0 && inFlight[0].done) for (const [id, text] of inFlight.shift().batch) answer(id, text);
      sync();
    });
  }
  function turn() {
    armed = false;
    for (let n = 0; n < o.perTurn && queue.length > 0; n++) {
      const [id, body] = queue.shift();
      const obj = JSON.parse(body);
      obj.metadata.uid = "00000000-0000-0000-0000-000000000000";
      burn(o.workUs);
      const text = JSON.stringify(obj);
      fs.writeSync(fds[0], text);
      pending.push([id, text]);
    }
    sync();
    if (queue.length > 0) arm();
  }
  function arm() { if (!armed) { armed = true; setImmediate(turn); } }
  return (id, body) => { queue.push([id, body]); arm(); };
}
`;

const WORKER = `${LOGIC}
const { parentPort, workerData } = require("node:worker_threads");
parentPort.postMessage(["tid", Number(fs.readlinkSync("/proc/thread-self").split("/").pop())]);
const logic = makeLogic(workerData, (id, text) => parentPort.postMessage([id, text]));
parentPort.on("message", ([id, body]) => logic(id, body));
`;

// The server owns its file's directory and removes it when its parent closes stdin or dies.
const SERVER = `${LOGIC}
const http2 = require("node:http2");
const { Worker } = require("node:worker_threads");
const dir = fs.mkdtempSync(require("node:path").join(require("node:os").tmpdir(), "pipeline-model-"));
const o = { ...JSON.parse(process.env.MODEL), file: dir + "/log" };
const server = http2.createSecureServer(JSON.parse(process.env.BARE_TLS));
const waiting = new Map();
let next = 0;
function answer(id, text) {
  const res = waiting.get(id);
  waiting.delete(id);
  res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
let logic, tid = 0;
const ready = new Promise((resolve) => {
  if (!o.split) { logic = makeLogic(o, answer); return resolve(); }
  const w = new Worker(${JSON.stringify(WORKER)}, { eval: true, workerData: o });
  w.on("message", ([id, text]) => { if (id === "tid") { tid = text; resolve(); } else answer(id, text); });
  logic = (id, body) => w.postMessage([id, body]);
});
server.on("request", (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => { const id = next++; waiting.set(id, res); logic(id, Buffer.concat(chunks).toString("utf8")); });
});
ready.then(() => server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + " " + tid + "\\n")));
process.stdin.on("end", () => { fs.rmSync(dir, { recursive: true, force: true }); process.exit(0); });
process.stdin.resume();
`;

export interface ModelServer {
  options: ModelOptions;
  /** One client's request: resolves on the 201. */
  call(): Promise<void>;
  /** CPU so far, ms: the process, its serving thread, and the work thread (0 when not split). */
  cpu(): { processMs: number; mainMs: number; workMs: number };
  stop(): Promise<void>;
}

/** Starts a model server and one HTTP/2 session to it (the benchmark's client). */
export async function startModel(options: ModelOptions): Promise<ModelServer> {
  const server = await startBareServer("model server", SERVER, { MODEL: JSON.stringify(options) }, 1);
  const { pid } = server;
  const tid = Number(server.reported[0]);
  return {
    options,
    call: server.call,
    cpu: () => ({ processMs: processCpuMs(pid), mainMs: threadCpuMs(pid), workMs: tid ? threadCpuMs(pid, tid) : 0 }),
    stop: server.stop,
  };
}
