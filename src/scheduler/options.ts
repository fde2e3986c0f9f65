// Command-line flags of kube-scheduler (the subset this scheduler has, named as upstream's), through
// the controller components' one parser (utils/controller-flags.ts).
import { Option } from "commander";
import { type ControllerFlags, parseControllerFlags } from "../utils/controller-flags.ts";
import { FlagError, type FlagsResult } from "../utils/flags.ts";

export interface SchedulerFlags extends ControllerFlags {
  schedulerName: string;
}

export function parseSchedulerFlags(argv: string[]): FlagsResult<SchedulerFlags> {
  return parseControllerFlags(
    {
      name: "kube-scheduler",
      description:
        "Binds each pod without spec.nodeName (and with spec.schedulerName default-scheduler or unset) to a Ready, schedulable node " +
        "that matches its nodeSelector and whose NoSchedule/NoExecute taints it tolerates, preferring the node with the fewest pods. " +
        "Pods that fit nowhere get PodScheduled=False (Unschedulable) and a FailedScheduling event, and are retried.",
      kubeconfigHelp: "Kubeconfig of the cluster, e.g. <data-dir>/scheduler.kubeconfig of its API server.",
      metricsBindAddress: "127.0.0.1:10251",
      lease: { namespace: "kube-system", name: "kube-scheduler", help: "Schedule only while holding the leader Lease (for replicated schedulers)." },
      options: [new Option("--scheduler-name <name>", "The spec.schedulerName of the pods this scheduler places.").default("default-scheduler")],
      examples: ["kube-scheduler --kubeconfig <data-dir>/scheduler.kubeconfig", "kube-scheduler --kubeconfig <data-dir>/scheduler.kubeconfig --leader-elect=false --metrics-bind-address 0"],
      build: (o, flags) => {
        const schedulerName = String(o.schedulerName);
        if (!schedulerName) throw new FlagError("--scheduler-name must not be empty");
        return { ...flags, schedulerName };
      },
    },
    argv,
  );
}
