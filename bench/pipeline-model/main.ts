// bench/pipeline-model: what would raise durable creates/s, asked of a model before it is built
// (docs/high-availability.md#what-10x-needs). For each amount of API work per request, four model
// servers (the work on the serving thread or on a second one; one or two syncs at once) and a fifth
// that answers without any sync (the most a faster sync could give) take alternating slices of the
// same 16 clients over one HTTP/2 session, as bench/apiserver's creates.
//   npm run bench:pipeline-model [-- --help]
import { benchArgs } from "../support/args.ts";
import { table } from "../support/stats.ts";
import { measureAlternating } from "./measure.ts";
import { type ModelOptions, type ModelServer, startModel } from "./model.ts";

const args = benchArgs(
  "npm run bench:pipeline-model --",
  "Requests/s of a model of the durable create path (bench/pipeline-model/model.ts): the API work on the serving thread or a second one, one or two fdatasyncs at once, for each amount of work.",
  {
    "work-us": { type: "string", default: "290,200,150,100", help: "CPU of the API work per request (µs), a list; with about 140 µs of its own beside it, 200-220 makes the model's serving thread as busy per request as the API server's main thread (bench:apiserver's budget line)" },
    clients: { type: "string", default: "16", help: "concurrent clients, streams of one HTTP/2 session" },
    slices: { type: "string", default: "6", help: "slices per server, alternating" },
    "slice-ms": { type: "string", default: "2000", help: "length of a slice (ms)" },
    "per-turn": { type: "string", default: "4", help: "requests whose work starts per event-loop turn (the API server's pacing)" },
  },
);
const clients = args.count("clients", 1);
const slices = args.count("slices", 1);
const sliceMs = args.count("slice-ms", 100);
const perTurn = args.count("per-turn", 1);

const rows: (string | number)[][] = [["work µs", "work on", "syncs at once", "requests/s", "vs serving thread, 1 sync", "server CPU µs per request", "serving thread busy", "work thread busy"]];
for (const workUs of args.counts("work-us")) {
  const variants: ModelOptions[] = [];
  for (const split of [false, true]) for (const syncs of [1, 2]) variants.push({ workUs, split, syncs, perTurn });
  variants.push({ workUs, split: false, syncs: 0, perTurn });
  console.error(`work ${workUs} µs: ${variants.length} model servers, ${slices} slices of ${sliceMs} ms each ...`);
  const servers: ModelServer[] = [];
  try {
    for (const v of variants) servers.push(await startModel(v));
    await measureAlternating(servers, clients, 1, sliceMs); // unmeasured: JIT and the session warm
    const figures = await measureAlternating(servers, clients, slices, sliceMs);
    const base = figures[0]!.opsPerSec;
    for (const [i, f] of figures.entries()) {
      const o = variants[i]!;
      const pct = (x: number) => `${Math.round(x * 100)}%`;
      rows.push([workUs, o.split ? "a second thread" : "the serving thread", o.syncs === 0 ? "none (not durable)" : String(o.syncs), Math.round(f.opsPerSec), `${(f.opsPerSec / base).toFixed(2)}x`, Math.round(f.cpuUsPerOp), pct(f.mainBusy), o.split ? pct(f.workBusy) : "-"]);
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}
console.log(table(rows));
