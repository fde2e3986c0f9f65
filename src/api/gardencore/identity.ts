// Gardenlet identities (docs/bastion.md#vocabulary): user `gardener.cloud:system:seed:<seed>` in group
// `gardener.cloud:system:seeds`.
import { SEED_USER_PREFIX, SEEDS_GROUP } from "../../apis/gardencore/v1beta1/types.ts";

/** The seed a gardenlet user acts for, or undefined for any other user (both name and group must match). */
export function seedNameOfUser(user: { username: string; groups?: readonly string[] }): string | undefined {
  if (!user.groups?.includes(SEEDS_GROUP)) return undefined;
  if (!user.username.startsWith(SEED_USER_PREFIX)) return undefined;
  const seed = user.username.slice(SEED_USER_PREFIX.length);
  return seed === "" ? undefined : seed;
}

/** The user name of a seed's gardenlet. */
export function seedUserName(seed: string): string {
  return `${SEED_USER_PREFIX}${seed}`;
}
