// generateName support, as k8s.io/apiserver/pkg/storage/names: the base is cut to 58 characters
// and 5 random characters are appended, keeping the result within a 63-character DNS label.
import { randomInt } from "node:crypto";

/** No vowels (no accidental words) and no confusable characters (0/o, 1/l, 3/e). */
export const RANDOM_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
export const RANDOM_LENGTH = 5;
export const MAX_GENERATED_NAME_LENGTH = 63 - RANDOM_LENGTH;

/** Returns an integer in [0, max). Injectable so tests are deterministic. */
export type RandomIntFn = (max: number) => number;

const cryptoRandomInt: RandomIntFn = (max) => randomInt(max);

/** n characters drawn from RANDOM_ALPHABET. */
export function randomString(n: number, random: RandomIntFn = cryptoRandomInt): string {
  let out = "";
  for (let i = 0; i < n; i++) out += RANDOM_ALPHABET[random(RANDOM_ALPHABET.length)];
  return out;
}

/** `generateName("web-")` -> e.g. `web-x7k2q`. Validate the base (as a prefix) before calling. */
export function generateName(base: string, random: RandomIntFn = cryptoRandomInt): string {
  const cut = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  return cut + randomString(RANDOM_LENGTH, random);
}
