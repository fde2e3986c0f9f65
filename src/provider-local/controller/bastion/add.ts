// Registers provider-local's Bastion controller: the extension library's generic reconciler for type
// `local`, class `shoot`, with the local actuator and ConfigValidator.
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { addBastionController } from "../../../extensions/controller/bastion/add.ts";
import type { BastionReconciler } from "../../../extensions/controller/bastion/reconciler.ts";
import type { LocalNetworks } from "../../network/networks.ts";
import { LocalBastionActuator, type LocalActuatorOptions } from "./actuator.ts";
import { LocalConfigValidator } from "./configvalidator.ts";

export const PROVIDER_TYPE = "local";

export interface AddOptions extends Omit<LocalActuatorOptions, "networks"> {
  networks: LocalNetworks;
  maxConcurrentReconciles?: number;
}

export function addLocalBastionController(mgr: Manager, o: AddOptions): { controller: Controller; reconciler: BastionReconciler; actuator: LocalBastionActuator } {
  const { maxConcurrentReconciles, ...rest } = o;
  const actuator = new LocalBastionActuator(rest);
  const added = addBastionController(mgr, {
    type: PROVIDER_TYPE,
    actuator,
    configValidator: new LocalConfigValidator(),
    extensionClasses: ["shoot"],
    ...(maxConcurrentReconciles !== undefined ? { maxConcurrentReconciles } : {}),
  });
  return { ...added, actuator };
}
