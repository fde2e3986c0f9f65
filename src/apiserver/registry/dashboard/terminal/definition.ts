// dashboard.gardener.cloud/v1alpha1 Terminal (docs/terminals.md#the-terminal-kind), served by the garden
// API server as gardener/terminal-controller-manager's CRD would be: namespaced, status subresource,
// no short names; the schema's required fields and enums are the CRD's, every other rule is the
// terminal-controller-manager's validating webhook's. Mutating webhooks run before the schema, so
// the mutating webhook can fill in spec.identifier.
import { GROUP, KIND_TERMINAL, RESOURCE_TERMINALS, VERSION } from "../../../../apis/dashboard/v1alpha1/types.ts";
import type { ResourceDefinition, Strategy } from "../../types.ts";
import { terminalSchema } from "./schema.ts";
import { terminalTable } from "./table.ts";

export const TERMINALS = { group: GROUP, resource: RESOURCE_TERMINALS } as const;

/** The largest Terminal stored; the validating webhook refuses much less (maxObjectSize, 10 KiB by default). */
export const TERMINAL_MAX_OBJECT_BYTES = 256 * 1024;

/** As a CRD's: create drops status and update keeps it (the generic store), generation follows spec. */
const terminalStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
};

export const terminalDefinition: ResourceDefinition = {
  group: GROUP,
  version: VERSION,
  kind: KIND_TERMINAL,
  listKind: "TerminalList",
  plural: RESOURCE_TERMINALS,
  singular: "terminal",
  namespaced: true,
  schema: terminalSchema,
  hasStatus: true,
  strategy: terminalStrategy,
  table: terminalTable,
  strategicMergePatch: false,
  maxObjectBytes: TERMINAL_MAX_OBJECT_BYTES,
};
