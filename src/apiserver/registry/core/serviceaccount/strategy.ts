// ServiceAccount strategy: nothing beyond ObjectMeta validation (done by the generic store).
import type { ServiceAccount } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";

export const serviceAccountStrategy: Strategy<ServiceAccount> = {};
