import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_GENERATED_NAME_LENGTH, RANDOM_ALPHABET, generateName, randomString } from "./generate.ts";

void test("generateName appends 5 characters from the vowel-free alphabet", () => {
  const name = generateName("web-");
  assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

void test("generateName cuts the base to 58 characters", () => {
  const base = "a".repeat(70);
  const name = generateName(base);
  assert.equal(name.length, 63);
  assert.equal(name.slice(0, MAX_GENERATED_NAME_LENGTH), "a".repeat(58));
});

void test("the random source is injectable", () => {
  let i = 0;
  const seq = (max: number): number => i++ % max;
  assert.equal(generateName("x-", seq), `x-${RANDOM_ALPHABET.slice(0, 5)}`);
  assert.equal(randomString(3, () => RANDOM_ALPHABET.length - 1), "999");
});

void test("names differ between calls", () => {
  const seen = new Set<string>();
  for (let k = 0; k < 50; k++) seen.add(generateName("p-"));
  assert.ok(seen.size > 45);
});
