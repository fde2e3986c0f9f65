// The server's admission webhooks (docs/admission-webhooks.md): the plugin, the watched
// configurations it reads, and upstream's fail-open counter for calls skipped under `Ignore`.
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import { WebhookConfigurations } from "../admission/webhook/configs.ts";
import { WebhookAdmission } from "../admission/webhook/plugin.ts";
import type { Dialer } from "../egressselector/egressselector.ts";

/** `dial`: the egress selector's cluster dialer, for webhooks that reference a Service. */
export function webhookAdmission(metrics: Registry, logger: Logger, dial?: Dialer): { plugin: WebhookAdmission; configurations: WebhookConfigurations } {
  const failOpen = new Counter({
    name: "apiserver_admission_webhook_fail_open_count",
    help: "Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
    labelNames: ["name", "type"],
    registers: [metrics],
  });
  const configurations = new WebhookConfigurations();
  const plugin = new WebhookAdmission({
    configurations,
    ...(dial ? { dial } : {}),
    onIgnoredFailure: (webhook, type, err) => {
      failOpen.inc({ name: webhook, type });
      logger.warn({ webhook, err: err.message }, "failed calling webhook, failing open (failurePolicy Ignore)");
    },
  });
  return { plugin, configurations };
}
