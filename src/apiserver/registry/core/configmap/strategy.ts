// ConfigMap strategy: validation only (no defaults, no status).
import type { ConfigMap } from "../../../../apis/core/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { validateConfigMap, validateConfigMapUpdate } from "./validation.ts";

export const configMapStrategy: Strategy<ConfigMap> = {
  validate: (_ctx, cm) => validateConfigMap(cm),
  validateUpdate: (_ctx, cm, old) => validateConfigMapUpdate(cm, old),
};
