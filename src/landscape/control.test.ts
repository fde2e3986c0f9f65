import assert from "node:assert/strict";
import { test } from "node:test";
import { BASTION_POOL_SIZE_ENV, BASTION_TTL_ENV, MAX_RESTART_BACKOFF_ENV } from "./components.ts";
import { NotRootError, requireRoot, supervisorEnv } from "./control.ts";

test("non-root users are told clearly that root is required", () => {
  assert.throws(() => requireRoot("up", 1000), (err: unknown) => err instanceof NotRootError && /gardener-local up must run as root/.test(err.message) && /sudo gardener-local up/.test(err.message));
  assert.doesNotThrow(() => requireRoot("down", 0));
});

test("up hands the bastion time-to-live to the supervisor through its environment, and only then", () => {
  const env = supervisorEnv({ bastionTimeToLive: "20s" }, { PATH: "/bin" });
  assert.equal(env[BASTION_TTL_ENV], "20s");
  assert.equal(env.PATH, "/bin");
  assert.equal(BASTION_TTL_ENV in supervisorEnv({}, { PATH: "/bin", [BASTION_TTL_ENV]: "5s" }), false, "an inherited value does not leak into a landscape without the option");
});

test("up hands provider-local's bastion pool size (0 included) to the supervisor through its environment, and only then", () => {
  assert.equal(supervisorEnv({ bastionPoolSize: 0 }, {})[BASTION_POOL_SIZE_ENV], "0");
  assert.equal(BASTION_POOL_SIZE_ENV in supervisorEnv({}, { [BASTION_POOL_SIZE_ENV]: "4" }), false);
});

test("up hands the longest restart backoff to the supervisor through its environment, and only then", () => {
  assert.equal(supervisorEnv({ maxRestartBackoff: "1s" }, {})[MAX_RESTART_BACKOFF_ENV], "1s");
  assert.equal(MAX_RESTART_BACKOFF_ENV in supervisorEnv({}, { [MAX_RESTART_BACKOFF_ENV]: "1s" }), false);
});
