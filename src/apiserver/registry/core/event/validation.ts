// core/v1 Event validation: Kubernetes applies only the legacy rules to core/v1 requests
// (pkg/apis/core/validation legacyValidateEvent): namespaces must agree, and events with an
// eventTime (the "new" API shape) must name their reporter, action and reason.
import type { Event } from "../../../../apis/core/v1/types.ts";
import { type FieldError, invalid, required } from "../../../../apimachinery/field/errors.ts";
import { isQualifiedName } from "../../../../apimachinery/names/validation.ts";
import { asRecord, asString } from "../keys.ts";

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

export function validateEvent(event: Event): FieldError[] {
  const errs: FieldError[] = [];
  const ns = event.metadata.namespace ?? "";
  const involvedNs = asString(asRecord(event.involvedObject)?.namespace);
  const mismatch = () => errs.push(invalid("involvedObject.namespace", involvedNs, "does not match event.namespace"));
  if (!asString(event.eventTime)) {
    // Events about cluster-scoped objects live in "default" (or no namespace).
    if (involvedNs === "" ? ns !== "" && ns !== "default" : ns !== involvedNs) mismatch();
    return errs;
  }
  if (involvedNs === "" && ns !== "default" && ns !== "kube-system") mismatch();
  const controller = asString(event.reportingComponent);
  if (!controller) errs.push(required("reportingComponent"));
  else for (const msg of isQualifiedName(controller)) errs.push(invalid("reportingComponent", controller, msg));
  const limit = (field: "reportingInstance" | "action" | "reason" | "message", max: number, needed: boolean) => {
    const v = asString(event[field]);
    if (needed && !v) errs.push(required(field));
    if (v.length > max) errs.push(invalid(field, "", `can have at most ${max} characters`));
  };
  limit("reportingInstance", REPORTING_INSTANCE_LIMIT, true);
  limit("action", ACTION_LIMIT, true);
  limit("reason", REASON_LIMIT, true);
  limit("message", NOTE_LIMIT, false);
  return errs;
}
