// bench/apiserver/profile: where the SQLite-backed server's main thread spends a create. Starts the
// server under V8's CPU profiler (node --cpu-prof), warms it with the benchmark's creates (16 clients
// as streams of one HTTP/2 session, as bench:apiserver), then runs the measured creates, stops the
// server and prints the main thread's CPU per create by file and by function, from the profile's
// samples inside the measured window only (docs/high-availability.md#a-profile-per-create).
//   npm run bench:apiserver-profile [-- --help]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, startApiServerProcess } from "../../test/support/apiserver.ts";
import { benchArgs } from "../support/args.ts";
import { rate, table } from "../support/stats.ts";
import { benchClient, expectStatus } from "./client.ts";
import { type CpuProfile, monotonicUs, profileWindow } from "./cpuprofile.ts";

const args = benchArgs(
  "npm run bench:apiserver-profile --",
  "The SQLite-backed server's main thread per create, by file and by function, from a V8 CPU profile of the measured creates only (bench/apiserver/profile.ts).",
  {
    "duration-ms": { type: "string", default: "10000", help: "measured creates (ms)" },
    "warmup-ms": { type: "string", default: "6000", help: "unmeasured creates before (ms): a fresh server's JIT needs seconds of load" },
    clients: { type: "string", default: "16", help: "concurrent clients, streams of one HTTP/2 session" },
    top: { type: "string", default: "25", help: "rows of each table" },
    "no-fsync": { type: "boolean", default: false, help: "the server with --sqlite-fsync=false (not durable) instead of durable writes" },
  },
);
const clients = args.count("clients", 1);
const top = args.count("top", 1);
const profDir = mkdtempSync(join(tmpdir(), "apiserver-profile-"));
try {
  const server = await startApiServerProcess({
    storage: "sqlite",
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profDir],
    extraArgs: args.values["no-fsync"] ? ["--sqlite-fsync=false"] : [],
  });
  let window: { from: number; to: number; creates: number };
  const c = benchClient(server.kubeconfig, clients, { protocol: "h2" });
  try {
    let created = 0;
    let seq = 0;
    const create = async () => {
      const r = await c.call("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${seq++}` }, data: { k: "v" } });
      expectStatus(r, [201], "create");
      created++;
    };
    console.error(`warming up for ${args.count("warmup-ms")} ms ...`);
    await rate(clients, args.count("warmup-ms"), create);
    console.error(`measuring for ${args.count("duration-ms", 1)} ms ...`);
    created = 0;
    const from = monotonicUs();
    await rate(clients, args.count("duration-ms", 1), create);
    window = { from, to: monotonicUs(), creates: created };
  } finally {
    c.close();
    await server.dispose(); // SIGTERM: node writes the profile as the process exits
  }
  const { from, to, creates } = window;
  const files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile")).sort();
  // The main thread's profile is the process's first; worker threads, if any, write their own.
  if (files.length === 0) throw new Error(`no CPU profile in ${profDir}: the server did not exit cleanly`);
  const profile = JSON.parse(readFileSync(join(profDir, files[0]!), "utf8")) as CpuProfile;
  const f = profileWindow(profile, from, to, repoRoot);
  if (f.sampledUs < (to - from) / 2) throw new Error(`the profile covers ${f.sampledUs} µs of the ${to - from} µs measured: its clock is not this process's`);
  const perCreate = (us: number) => (us / creates).toFixed(1);
  const share = (us: number) => `${((100 * us) / f.busyUs).toFixed(1)}%`;
  console.log(`${creates} creates in ${((to - from) / 1e6).toFixed(1)} s (${((creates * 1e6) / (to - from)).toFixed(0)}/s), ${args.values["no-fsync"] ? "--sqlite-fsync=false" : "durable"}`);
  console.log(`main thread: ${perCreate(f.busyUs)} µs per create busy, ${((100 * f.busyUs) / f.sampledUs).toFixed(0)}% of the time`);
  for (const [title, rows] of [["file", f.byFile], ["function", f.byFunction]] as const) {
    console.log(`\nby ${title}:`);
    console.log(table([[title, "µs per create", "of the busy time"], ...rows.slice(0, top).map(([k, us]) => [k, perCreate(us), share(us)])]));
  }
} finally {
  rmSync(profDir, { recursive: true, force: true });
}
