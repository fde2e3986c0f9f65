// bench/bastion-control-plane: Bastions through the whole control plane in one process: garden and
// seed API servers, gardener-controller-manager, gardenlet and a provider with the test actuator
// (no infrastructure). Prints created -> Ready per second for a burst, create -> Ready latency at a
// steady rate, and deleted -> gone per second; 1,000 Bastions per phase across 50 shoots.
//   node --import tsx bench/bastion-control-plane/main.ts [--bastions 1000 --shoots 50 --rate 50 --concurrency 32]
import { Bastions } from "../../src/client/garden.ts";
import { table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { PROJECT_NS, bastionFor, createShoot, startLandscape } from "../../test/integration/bastion/landscape.ts";
import { ReadyWatcher, burst, deleteAll, paced } from "./phases.ts";

const args = benchArgs(
  "node --import tsx bench/bastion-control-plane/main.ts",
  "Bastions through the whole control plane in one process (no infrastructure): a burst's created -> Ready per second, create -> Ready at a steady rate, deleted -> gone per second.",
  {
    bastions: { type: "string", default: "1000", help: "Bastions per phase" },
    shoots: { type: "string", default: "50", help: "shoots they are spread over" },
    rate: { type: "string", default: "50", help: "creates per second of the steady phase" },
    concurrency: { type: "string", default: "32", help: "requests in flight" },
  },
);
const bastions = args.count("bastions", 1);
const shoots = args.count("shoots", 1);
const rate = args.count("rate", 1);
const concurrency = args.count("concurrency", 1);

async function main(): Promise<void> {
  console.error("starting garden and seed API servers, controller manager, gardenlet and provider ...");
  // The seed API server runs as its own process (the real binary), so the two cores are used.
  const ls = await startLandscape({ seedProcess: true });
  const watcher = new ReadyWatcher(ls.gardenAdmin, PROJECT_NS);
  try {
    for (let i = 0; i < shoots; i++) await createShoot(ls, `s-${i}`);
    const alice = await ls.clientFor("alice");
    await watcher.start();
    const create = (prefix: string) => async (i: number) => {
      const name = `${prefix}-${i}`;
      watcher.sent(name);
      await alice.create(Bastions, bastionFor(`s-${i % shoots}`, name));
    };

    console.error(`burst: ${bastions} bastions, ${concurrency} creators ...`);
    const b = await burst(watcher, bastions, concurrency, create("burst"));
    console.error(`deleting the burst's ${bastions} bastions ...`);
    const d = await deleteAll(watcher, alice, PROJECT_NS, bastions, concurrency, (i) => `burst-${i}`);
    console.error(`steady: ${bastions} bastions at ${rate}/s ...`);
    const p = await paced(watcher, bastions, rate, create("steady"));

    const rows: (string | number)[][] = [
      ["figure", "value"],
      [`burst: created -> Ready per second (${bastions} bastions, ${shoots} shoots, ${concurrency} creators)`, b.readyPerSec],
      ["burst: create -> Ready p50 ms", b.latency.p50],
      ["burst: create -> Ready p99 ms", b.latency.p99],
      [`deletion: deleted -> gone (garden and seed) per second`, d.gonePerSec],
      [`steady: create -> Ready p50 ms (${rate} creates/s, ${bastions} bastions, ${shoots} shoots)`, p.latency.p50],
      ["steady: create -> Ready p99 ms", p.latency.p99],
      ["steady: create -> Ready max ms", p.latency.max],
      ["steady: bastions Ready", `${p.latency.n}/${bastions}`],
      ["actuator reconciles per bastion (both phases)", ls.actuator.calls.filter((c) => c.op === "reconcile").length / (2 * bastions)],
    ];
    console.log(table(rows));
    const met = p.latency.p99 < 200 && p.latency.n === bastions;
    console.log(`goal create -> Ready p99 < 200 ms at ${rate} creates/s: ${met ? "met" : "NOT met"}`);
  } finally {
    watcher.stop();
    await ls.stop();
  }
}

await main();
