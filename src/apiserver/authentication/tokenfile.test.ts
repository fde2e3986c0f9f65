import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TokenFileAuthenticator, parseTokenFile } from "./tokenfile.ts";

describe("parseTokenFile", () => {
  it("parses users, uids and quoted comma-separated groups; skips blank lines", () => {
    const m = parseTokenFile('tok1,alice,u-1,"dev,ops"\n\n tok2, bob ,u-2\r\ntok3,carol,u-3,admins\n');
    assert.deepEqual(m.get("tok1"), { username: "alice", uid: "u-1", groups: ["dev", "ops"] });
    assert.deepEqual(m.get("tok2"), { username: "bob ", uid: "u-2", groups: [] });
    assert.deepEqual(m.get("tok3"), { username: "carol", uid: "u-3", groups: ["admins"] });
    assert.equal(m.size, 3);
  });

  it("handles escaped quotes inside quoted fields and lets later duplicates win", () => {
    const m = parseTokenFile('t,"we""ird",1\nt,second,2');
    assert.equal(m.get("t")?.username, "second");
    assert.equal(parseTokenFile('t,"we""ird",1').get("t")?.username, 'we"ird');
  });

  it("rejects malformed lines with the line number", () => {
    assert.throws(() => parseTokenFile("a,b,c\nonly,two\n", "/etc/tokens.csv"), {
      message: "/etc/tokens.csv: line 2: must have at least 3 columns (token, user name, user uid), found 2",
    });
    assert.throws(() => parseTokenFile('x,y,z\n\nt,u,i,"g1,g2\n'), /line 3: unterminated quoted field/);
    assert.throws(() => parseTokenFile(",user,uid"), /line 1: empty token/);
    assert.throws(() => parseTokenFile('t,u"x,uid'), /line 1: bare "/);
  });
});

describe("TokenFileAuthenticator", () => {
  it("returns a copy of the user for a known token and no opinion otherwise", async () => {
    const a = TokenFileAuthenticator.fromText("secret,alice,1,dev");
    const r = await a.authenticateToken("secret");
    assert.deepEqual(r, { user: { username: "alice", uid: "1", groups: ["dev"] } });
    r!.user.groups.push("mutated");
    assert.deepEqual((await a.authenticateToken("secret"))!.user.groups, ["dev"]);
    assert.equal(await a.authenticateToken("other"), undefined);
  });
});
