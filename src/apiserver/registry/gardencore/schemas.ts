// Schemas shared by the Gardener kinds (core.gardener.cloud, operations.gardener.cloud).
import type { JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import { obj, str, stringArray, time } from "../../schema/builders.ts";

/** gardencore Condition (also used by the extension kinds). */
export const gardenConditionSchema: JSONSchemaProps = obj(
  {
    type: str("Type of the condition."),
    status: str("Status of the condition, one of True, False, Unknown, Progressing."),
    lastTransitionTime: time("Last time the condition transitioned from one status to another."),
    lastUpdateTime: time("Last time the condition was updated."),
    reason: str("The reason for the condition's last transition."),
    message: str("A human readable message indicating details about the transition."),
    codes: stringArray("Well-defined error codes in case the condition reports a problem."),
  },
  "Condition holds the information about the state of a resource.",
  ["type", "status"],
);
