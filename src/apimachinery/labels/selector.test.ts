import { test } from "node:test";
import assert from "node:assert/strict";
import { StatusError } from "../errors.ts";
import {
  everything,
  isEverything,
  matches,
  nothing,
  parseLabelSelector,
  requiresExactMatch,
  selectorFromLabelSelector,
  selectorFromSet,
  toString,
} from "./selector.ts";

function badRequest(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 400);
    assert.equal(err.reason, "BadRequest");
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

const sel = (text: string, labels: Record<string, string> | undefined): boolean => matches(parseLabelSelector(text), labels);

void test("equality operators", () => {
  assert.equal(sel("app=web", { app: "web" }), true);
  assert.equal(sel("app==web", { app: "web" }), true);
  assert.equal(sel("app=web", { app: "db" }), false);
  assert.equal(sel("app=web", {}), false);
  assert.equal(sel("app!=web", { app: "db" }), true);
  assert.equal(sel("app!=web", { app: "web" }), false);
});

void test("!= and notin match objects that lack the key; = and in do not", () => {
  assert.equal(sel("app!=web", {}), true);
  assert.equal(sel("app!=web", undefined), true);
  assert.equal(sel("env notin (prod,stage)", { app: "x" }), true);
  assert.equal(sel("env in (prod,stage)", { app: "x" }), false);
});

void test("set operators", () => {
  assert.equal(sel("env in (prod, stage)", { env: "stage" }), true);
  assert.equal(sel("env in (prod,stage)", { env: "dev" }), false);
  assert.equal(sel("env notin (prod,stage)", { env: "dev" }), true);
  assert.equal(sel("env notin (prod,stage)", { env: "prod" }), false);
});

void test("exists and does-not-exist", () => {
  assert.equal(sel("app", { app: "" }), true);
  assert.equal(sel("app", {}), false);
  assert.equal(sel("!app", {}), true);
  assert.equal(sel("!app", { app: "x" }), false);
  assert.equal(sel("app,!tier", { app: "x" }), true);
});

void test("inherited object properties are not labels", () => {
  assert.equal(sel("constructor", {}), false);
  assert.equal(sel("!toString", {}), true);
  assert.equal(sel("hasOwnProperty!=x", {}), true);
});

void test("empty values", () => {
  assert.equal(sel("app=", { app: "" }), true);
  assert.equal(sel("app=", { app: "x" }), false);
  assert.equal(sel("app=", {}), false);
  assert.equal(sel("app=,tier=be", { app: "", tier: "be" }), true);
  assert.deepEqual(parseLabelSelector("a in ()").requirements[0]!.values, [""]);
  assert.deepEqual(parseLabelSelector("a in (,x)").requirements[0]!.values, ["", "x"]);
  assert.deepEqual(parseLabelSelector("a in (x,)").requirements[0]!.values, ["", "x"]);
  assert.deepEqual(parseLabelSelector("a in (x,,y)").requirements[0]!.values, ["", "x", "y"]);
});

void test("gt and lt compare int64 values", () => {
  assert.equal(sel("replicas>5", { replicas: "6" }), true);
  assert.equal(sel("replicas>5", { replicas: "5" }), false);
  assert.equal(sel("replicas<5", { replicas: "-10" }), true);
  assert.equal(sel("replicas>5", { replicas: "abc" }), false);
  assert.equal(sel("replicas>5", {}), false);
  assert.equal(sel("n>9223372036854775806", { n: "9223372036854775807" }), true);
  assert.equal(sel("n<1", { n: "9223372036854775808" }), false, "beyond int64 is not an integer");
  badRequest(() => parseLabelSelector("a>b"), /for 'Gt', 'Lt' operators, the value must be an integer/);
});

void test("keywords are identifiers outside operator position", () => {
  assert.equal(sel("in=notin", { in: "notin" }), true);
  assert.equal(sel("notin in (in)", { notin: "in" }), true);
});

void test("whitespace is ignored; empty text selects everything", () => {
  assert.equal(sel("  app = web ,  tier in ( a , b ) ", { app: "web", tier: "b" }), true);
  assert.ok(isEverything(parseLabelSelector("")));
  assert.ok(isEverything(parseLabelSelector("   ")));
  assert.equal(sel("", {}), true);
});

void test("parse errors are 400 BadRequest with Kubernetes' messages", () => {
  badRequest(() => parseLabelSelector("app=a b"), "found 'b', expected: ',' or 'end of string'");
  badRequest(() => parseLabelSelector("x y"), "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt");
  badRequest(() => parseLabelSelector("app in"), "unable to parse requirement: found '' expected: '('");
  badRequest(() => parseLabelSelector("app in (a"), "unable to parse requirement: found '', expected: ',' or ')'");
  badRequest(() => parseLabelSelector("app in (a b)"), "unable to parse requirement: found 'b', expected: ',' or ')'");
  badRequest(() => parseLabelSelector("app,"), "found '', expected: identifier after ','");
  badRequest(() => parseLabelSelector(",app"), "found ',', expected: !, identifier, or 'end of string'");
  badRequest(() => parseLabelSelector("=x"), "found '=', expected: !, identifier, or 'end of string'");
  badRequest(() => parseLabelSelector("app (x)"), "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  badRequest(() => parseLabelSelector("app==="), "unable to parse requirement: found '=', expected: identifier");
  badRequest(() => parseLabelSelector("!app=x"), "found '=', expected: ',' or 'end of string'");
  badRequest(() => parseLabelSelector("!"), "unable to parse requirement: found '', expected: identifier");
});

void test("keys and values are validated", () => {
  badRequest(() => parseLabelSelector("a/b/c=x"), /^unable to parse requirement: key: Invalid value: "a\/b\/c": a qualified name must consist of/);
  badRequest(() => parseLabelSelector("Bad_/x"), /^unable to parse requirement: key: Invalid value: "Bad_\/x": prefix part a lowercase RFC 1123 subdomain/);
  badRequest(() => parseLabelSelector("k=-v"), /^unable to parse requirement: values\[0\]\[k\]: Invalid value: "-v": a valid label must be/);
  badRequest(() => parseLabelSelector(`k=${"x".repeat(64)}`), /must be no more than 63 characters/);
  assert.equal(sel("example.com/app=x", { "example.com/app": "x" }), true);
});

void test("toString is canonical and round-trips", () => {
  const s = parseLabelSelector("z!=1, a in (c,b,b), !m, k, n>3, o<4, p==q, r notin (x)");
  assert.equal(toString(s), "a in (b,c),k,!m,n>3,o<4,p==q,r notin (x),z!=1");
  assert.equal(toString(parseLabelSelector(toString(s))), toString(s));
  assert.equal(toString(everything()), "");
});

void test("metav1.LabelSelector conversion", () => {
  const s = selectorFromLabelSelector({
    matchLabels: { app: "web" },
    matchExpressions: [
      { key: "env", operator: "In", values: ["prod", "stage"] },
      { key: "canary", operator: "DoesNotExist" },
      { key: "tier", operator: "Exists" },
      { key: "zone", operator: "NotIn", values: ["a"] },
    ],
  });
  assert.equal(toString(s), "app=web,!canary,env in (prod,stage),tier,zone notin (a)");
  assert.equal(matches(s, { app: "web", env: "prod", tier: "fe" }), true);
  assert.equal(matches(s, { app: "web", env: "prod", tier: "fe", canary: "1" }), false);
  assert.equal(matches(s, { app: "web", env: "prod", tier: "fe", zone: "a" }), false);
});

void test("nil selector matches nothing, empty selector matches everything", () => {
  assert.equal(matches(selectorFromLabelSelector(undefined), {}), false);
  assert.equal(matches(selectorFromLabelSelector(null), { a: "b" }), false);
  assert.equal(matches(nothing(), {}), false);
  assert.equal(matches(selectorFromLabelSelector({}), { a: "b" }), true);
  assert.ok(isEverything(selectorFromSet({})));
});

void test("invalid metav1.LabelSelector is 400", () => {
  badRequest(
    () => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "Bogus" as "In" }] }),
    '"Bogus" is not a valid label selector operator',
  );
  badRequest(
    () => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }),
    "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
  );
  badRequest(
    () => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }),
    'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
  );
  badRequest(() => selectorFromLabelSelector({ matchLabels: { "bad key": "x" } }), /^key: Invalid value: "bad key"/);
});

void test("requiresExactMatch and selectorFromSet", () => {
  assert.equal(requiresExactMatch(parseLabelSelector("a=b,c!=d"), "a"), "b");
  assert.equal(requiresExactMatch(parseLabelSelector("a in (b)"), "a"), "b");
  assert.equal(requiresExactMatch(parseLabelSelector("a in (b,c)"), "a"), undefined);
  assert.equal(requiresExactMatch(parseLabelSelector("c!=d"), "c"), undefined);
  const s = selectorFromSet({ b: "2", a: "1" });
  assert.equal(toString(s), "a=1,b=2");
  assert.equal(matches(s, { a: "1", b: "2", c: "3" }), true);
});
