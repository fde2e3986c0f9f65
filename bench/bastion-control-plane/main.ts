// bench/bastion-control-plane: Bastions through the whole control plane in one process: garden and
// seed API servers, gardener-controller-manager, gardenlet and a provider with the test actuator
// (no infrastructure). Prints created -> Ready per second for a burst, create -> Ready latency at a
// steady rate, and deleted -> gone per second; 1,000 Bastions per phase across 50 shoots.
//   node --import tsx bench/bastion-control-plane/main.ts [--bastions 1000 --shoots 50 --rate 50 --concurrency 32]
import { parseArgs } from "node:util";
import { Bastions } from "../../src/client/garden.ts";
import { table } from "../support/stats.ts";
import { PROJECT_NS, bastionFor, createShoot, startLandscape } from "../../test/integration/bastion/landscape.ts";
import { ReadyWatcher, burst, deleteAll, paced } from "./phases.ts";

const { values } = parseArgs({
  options: {
    bastions: { type: "string", default: "1000" },
    shoots: { type: "string", default: "50" },
    rate: { type: "string", default: "50" },
    concurrency: { type: "string", default: "32" },
  },
});
const bastions = Number(values.bastions);
const shoots = Number(values.shoots);
const rate = Number(values.rate);
const concurrency = Number(values.concurrency);

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
