// A manager in its own process, for the leader election test that kills a leader with SIGKILL.
// Usage: node --import tsx manager-child.ts <kubeconfig> <identity> <leaseMs> <renewMs> <retryMs>
// Prints "leading" once elected and "reconciled <ns>/<name>" for every reconcile.
import { Client } from "../../../src/client/client.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { stopOnSignals } from "../../../src/controllerruntime/signals.ts";
import { MirrorReconciler } from "./sample.ts";
import { ConfigMaps } from "../../../src/client/builtins.ts";
import { newControllerManagedBy } from "../../../src/controllerruntime/builder.ts";
import { labelSelector } from "../../../src/controllerruntime/predicates.ts";
import { mirrorLabel } from "./sample.ts";

const [kubeconfig, identity, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (!kubeconfig || !identity) throw new Error("usage: manager-child.ts <kubeconfig> <identity> <leaseMs> <renewMs> <retryMs>");

const client = Client.fromKubeconfigFile(kubeconfig, { fieldManager: identity });
const mgr = new Manager({
  client,
  server: false,
  defaultMetrics: false,
  leaderElection: {
    namespace: "kube-system",
    name: "mirror-controller",
    identity,
    leaseDurationMs: Number(leaseMs),
    renewDeadlineMs: Number(renewMs),
    retryPeriodMs: Number(retryMs),
  },
});
const reconciler = new MirrorReconciler(mgr);
newControllerManagedBy(mgr)
  .named("mirror")
  .for(ConfigMaps, [labelSelector(`${mirrorLabel}=true`)])
  .owns(ConfigMaps)
  .complete({
    reconcile: async (req, ctx) => {
      process.stdout.write(`reconciled ${req.namespace}/${req.name}\n`);
      return reconciler.reconcile(req, ctx);
    },
  });
stopOnSignals(mgr);
await mgr.start();
await mgr.elected();
process.stdout.write("leading\n");
