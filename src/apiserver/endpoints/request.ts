// One resource request as the REST handlers (resource.ts) and the /scale handler (scale.ts) see it.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../utils/clock.ts";
import type { ObjectStore } from "../registry/generic/interface.ts";
import type { RequestContext, ResourceDefinition } from "../registry/types.ts";
import type { RequestUrl } from "./request-url.ts";
import type { RequestInfo } from "./requestinfo.ts";
import type { WatchTracker } from "./watch.ts";
import type { WatchBudget } from "./watch-budget.ts";

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: RequestUrl;
  info: RequestInfo;
  def: ResourceDefinition;
  store: ObjectStore;
  ctx: RequestContext;
  clock: Clock;
  maxBodyBytes: number;
  watches: WatchTracker;
  watchBudget?: WatchBudget;
  minRequestTimeoutSeconds?: number;
  /** The request's metric labels: server-side apply sets the verb to APPLY. */
  labels: { verb: string };
}
