// The audit log of --audit-policy-file and --audit-log-path: the policy is read and checked at
// start (a bad policy stops the server with its message), the log file opened (created 0600).
import { readFile } from "node:fs/promises";
import type { Logger } from "pino";
import { AuditLog, type AuditSink } from "../audit/log.ts";
import { parsePolicy } from "../audit/policy.ts";
import { Auditor } from "../audit/recorder.ts";
import type { ApiServerOptions } from "./options.ts";

export interface AuditSetup {
  auditor?: Auditor;
  /** Writes what is queued and closes the file. */
  close(): Promise<void>;
}

/** The audit log; with `sink` (a worker of --workers) events go there instead of to a file this process opens. */
export async function startAudit(o: ApiServerOptions, logger: Logger, sink?: AuditSink): Promise<AuditSetup> {
  if (!o.auditPolicyFile || !o.auditLogPath) return { close: async () => {} };
  let policy;
  try {
    policy = parsePolicy(await readFile(o.auditPolicyFile, "utf8"));
  } catch (err) {
    throw new Error(`--audit-policy-file ${o.auditPolicyFile}: ${(err as Error).message}`, { cause: err });
  }
  if (sink) return { auditor: new Auditor(policy, sink), close: () => sink.close() };
  const log = await openAuditLog(o, o.auditLogPath, logger);
  logger.info({ path: o.auditLogPath, rules: policy.rules.length }, "audit log enabled");
  return { auditor: new Auditor(policy, log), close: () => log.close() };
}

/** The audit log file of --audit-log-path and its rotation. */
export function openAuditLog(o: ApiServerOptions, path: string, logger: Logger): Promise<AuditLog> {
  return new AuditLog({
    path,
    maxAgeDays: o.auditLogMaxAgeDays,
    maxBackups: o.auditLogMaxBackups,
    maxSizeMB: o.auditLogMaxSizeMB,
    bufferSize: o.auditLogBufferSize,
    onDrop: (dropped) => logger.error({ dropped }, "audit events dropped: the audit log cannot keep up (--audit-log-batch-buffer-size)"),
    onError: (err) => logger.error({ err }, "writing the audit log failed"),
  }).open();
}
