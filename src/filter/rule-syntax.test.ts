// AdGuard's rule syntax on its own: each form and modifier read as AdGuard Home documents it, the unsupported
// ones refused with the modifier named, and which list lines go to the rule parser at all.
import { describe, expect, test } from "bun:test";
import { badfilterTarget, isRuleLine, parseRule, type AdRule } from "./rule-syntax.ts";

const one = (line: string): AdRule => {
  const p = parseRule(line);
  if (p === null || "unsupported" in p) throw new Error(`${line}: ${JSON.stringify(p)}`);
  return p[0]!;
};

describe("AdGuard rule syntax", () => {
  test("comments and blank lines are nothing; cosmetic rules are not DNS", () => {
    for (const l of ["", "   ", "! comment", "# comment"]) expect(parseRule(l)).toBeNull();
    expect(parseRule("example.org##.banner")).toEqual({ unsupported: "a cosmetic (element hiding) rule, not DNS" });
  });

  test("name patterns: ||name^ a subtree, |name^ one name, /regex/, wildcards as a pattern", () => {
    expect(one("||Ads.Example.org^").match).toEqual({ kind: "subtree", name: "ads.example.org" });
    expect(one("|ads.example.org^").match).toEqual({ kind: "exact", name: "ads.example.org" });
    expect(one("/^ad[0-9]+\\./").match).toEqual({ kind: "regex", source: "^ad[0-9]+\\." });
    expect(one("||ad*.example.org^").match).toEqual({ kind: "regex", source: "(?:^|\\.)ad.*\\.example\\.org$" });
    expect(one("@@||ok.example.org^").allow).toBe(true);
  });

  test("hosts lines: the unspecified address blocks, another one is the answer, each name exactly", () => {
    const p = parseRule("0.0.0.0 a.example b.example") as AdRule[];
    expect(p.map((r) => [r.match, r.rewrite, r.hosts])).toEqual([
      [{ kind: "exact", name: "a.example" }, null, true],
      [{ kind: "exact", name: "b.example" }, null, true],
    ]);
    expect(one("192.0.2.7 nas.example").rewrite).toEqual({ rcode: "NOERROR", type: "A", value: "192.0.2.7" });
  });

  test("the supported modifiers", () => {
    expect(one("||x.example^$important").important).toBe(true);
    expect(one("||x.example^$badfilter").badfilter).toBe(true);
    expect(one("||x.example^$client=192.168.1.0/24|~'Frank\\'s laptop'").clients).toEqual({
      include: ["192.168.1.0/24"],
      exclude: ["Frank's laptop"],
    });
    expect(one("||x.example^$dnstype=AAAA|~a").dnstype).toEqual({ include: [28], exclude: [1] });
    expect(one("*$denyallow=com|net").denyallow).toEqual(["com", "net"]);
    expect(one("||x.example^$dnsrewrite=1.2.3.4").rewrite).toEqual({ rcode: "NOERROR", type: "A", value: "1.2.3.4" });
    expect(one("||x.example^$dnsrewrite=NOERROR;AAAA;::1").rewrite).toEqual({
      rcode: "NOERROR",
      type: "AAAA",
      value: "::1",
    });
    expect(one("||x.example^$dnsrewrite=y.example").rewrite).toEqual({
      rcode: "NOERROR",
      type: "CNAME",
      value: "y.example",
    });
    expect(one("||x.example^$dnsrewrite=NXDOMAIN;;").rewrite).toEqual({ rcode: "NXDOMAIN", type: null, value: "" });
    expect(one("||x.example^$dnsrewrite=REFUSED").rewrite).toEqual({ rcode: "REFUSED", type: null, value: "" });
    expect(one("@@||x.example^$dnsrewrite").rewriteAll).toBe(true);
  });

  test("a modifier Moat does not apply is named, and so is a form it cannot", () => {
    expect(parseRule("||x.example^$third-party")).toEqual({
      unsupported: "the modifier $third-party is not supported",
    });
    expect(parseRule("||x.example^$important,ctag=device_tv")).toEqual({
      unsupported: "the modifier $ctag is not supported",
    });
    expect(parseRule("||x.example^$dnsrewrite=NOERROR;MX;32 mail.example")).toEqual({
      unsupported: "$dnsrewrite record MX 32 mail.example: Moat rewrites to A, AAAA and CNAME records",
    });
    expect(parseRule("||x.example^$dnstype=BOGUS")).toEqual({ unsupported: "$dnstype=BOGUS: an unknown query type" });
    expect(parseRule("||x.example/path^")).toEqual({
      unsupported: "a pattern that is not a host name rule (a URL path or other characters)",
    });
    expect((parseRule("/^(?=ads)/") as { unsupported: string }).unsupported).toStartWith(
      "a regular expression RE2 cannot run:",
    );
    expect(parseRule("*$important")).toEqual({
      unsupported: "a rule that matches every name without $denyallow, $dnstype or $client",
    });
  });

  test("$badfilter names its rule without the modifier", () => {
    expect(badfilterTarget("||x.example^$badfilter")).toBe("||x.example^");
    expect(badfilterTarget("||x.example^$dnstype=A,badfilter")).toBe("||x.example^$dnstype=A");
  });

  test("only lines beyond a name or ||name^ go to the rule parser", () => {
    for (const l of ["||x.example^", "x.example", "0.0.0.0 x.example"]) expect(isRuleLine(l)).toBe(false);
    for (const l of ["@@||x.example^", "/ads/", "||x.example^$important", "||ad*.example^", "|x.example^"])
      expect(isRuleLine(l)).toBe(true);
  });
});
