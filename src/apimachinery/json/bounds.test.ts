import assert from "node:assert/strict";
import { it } from "node:test";
import { jsonTextDepth } from "./bounds.ts";

/** The plain definition: one character at a time. */
function depthByLoop(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > max && (max = depth) > limit) return max;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return max;
}

void it("jsonTextDepth counts brackets outside strings only, and stops past the limit", () => {
  const cases: [string, number][] = [
    ["", 0],
    ["1", 0],
    ['{"a":[1,{"b":2}]}', 3],
    ['{"a":"[[[{{{"}', 1],
    ['{"a":"x\\"[[["}', 1],
    ['{"a":"x\\\\"}[[[', 3],
    ['["\\\\\\"{"]', 1],
    ['"unterminated [[[', 0],
    ['["ends with a backslash \\', 1],
    ['"\\u005b"[', 1],
  ];
  for (const [text, want] of cases) assert.equal(jsonTextDepth(text, 100), want, text);
  assert.equal(jsonTextDepth("[".repeat(50), 10), 11);
  assert.equal(jsonTextDepth(JSON.stringify({ v: "x".repeat(1_000_000), w: [[["\\"]]] }), 100), 4);
});

void it("jsonTextDepth agrees with the character loop on random texts of quotes, escapes and brackets", () => {
  const alphabet = ['"', "\\", "[", "]", "{", "}", "a", ":", ","];
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let n = 0; n < 20_000; n++) {
    const len = Math.floor(random() * 40);
    let text = "";
    for (let i = 0; i < len; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    for (const limit of [2, 100]) assert.equal(jsonTextDepth(text, limit), depthByLoop(text, limit), JSON.stringify(text));
  }
});
