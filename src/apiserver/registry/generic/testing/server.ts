// Test support: the in-process pieces of a server without HTTP: storage, registry, one
// GenericStore per definition, admission with NamespaceLifecycle, the LocalClient, and the
// namespaces/finalize subresource.
import type { Storage } from "../../../storage/interface.ts";
import { FakeClock } from "../../../../utils/clock.ts";
import { AdmissionChain } from "../../../admission/chain.ts";
import { NamespaceLifecycle } from "../../../admission/namespace-lifecycle.ts";
import type { AdmissionPlugin } from "../../../admission/types.ts";
import { withNamespaceFinalize } from "../../../controllers/namespace-finalize.ts";
import { compileSchema } from "../../../schema/compile.ts";
import { SQLiteStorage } from "../../../storage/sqlite/sqlite.ts";
import { namespaceDefinition } from "../../core/namespace/definition.ts";
import { LocalClient } from "../../internal-client.ts";
import { ResourceRegistry } from "../../registry.ts";
import type { ResourceDefinition } from "../../types.ts";
import type { ObjectStore } from "../interface.ts";
import { StoreSet } from "../stores.ts";

export interface TestServer {
  storage: Storage;
  clock: FakeClock;
  registry: ResourceRegistry;
  client: LocalClient;
  storeFor(def: ResourceDefinition): ObjectStore;
}

export function newTestServer(defs: ResourceDefinition[], plugins: AdmissionPlugin[] = [new NamespaceLifecycle()]): TestServer {
  const storage = new SQLiteStorage({ path: ":memory:" });
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const registry = new ResourceRegistry();
  const admission = new AdmissionChain(plugins);
  const ref: { client?: LocalClient } = {};
  const stores = new StoreSet({ storage, clock, admission, compile: (schema) => compileSchema(schema), client: () => ref.client! });
  const client = new LocalClient(registry, stores.storeFor, clock);
  ref.client = client;
  registry.add(withNamespaceFinalize(namespaceDefinition, stores.create));
  for (const def of defs) registry.add(def);
  return { storage, clock, registry, client, storeFor: stores.storeFor };
}
