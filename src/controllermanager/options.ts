// Command-line flags of gardener-controller-manager, through the controller components' one parser
// (utils/controller-flags.ts).
import { Option } from "commander";
import { type ControllerFlags, durationFlag, parseControllerFlags } from "../utils/controller-flags.ts";
import type { FlagsResult } from "../utils/flags.ts";

export interface ControllerManagerFlags extends ControllerFlags {
  bastionMaxLifetimeMs: number;
}

export type ParseResult = FlagsResult<ControllerManagerFlags>;

export function parseControllerManagerFlags(argv: string[]): ParseResult {
  return parseControllerFlags(
    {
      name: "gardener-controller-manager",
      description: "Gardener's controller manager: Bastion lifetimes, project RBAC and namespaces, shoots' Bastions and shoot maintenance in the garden.",
      kubeconfigHelp: "Kubeconfig of the garden cluster.",
      metricsBindAddress: "127.0.0.1:2718",
      lease: { namespace: "garden", name: "gardener-controller-manager-leader-election", help: "Run the controllers only while holding the leader Lease (for replicas)." },
      options: [new Option("--bastion-max-lifetime <duration>", "Maximum lifetime of a Bastion, a Go duration (e.g. 24h, 8h30m).").default("24h")],
      examples: ["gardener-controller-manager --kubeconfig garden.kubeconfig", "gardener-controller-manager --kubeconfig garden.kubeconfig --bastion-max-lifetime 8h --leader-elect=false"],
      build: (o, flags) => ({ ...flags, bastionMaxLifetimeMs: durationFlag(o.bastionMaxLifetime, "--bastion-max-lifetime") }),
    },
    argv,
  );
}
