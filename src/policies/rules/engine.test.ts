// The rule engine on its own: AdGuard Home's priorities between rewrites, exceptions, $important, ordinary and
// hosts rules, $badfilter, and the conditions ($client by address, ID or group name, $dnstype, $denyallow).
import { describe, expect, test } from "bun:test";
import { parseRule, type AdRule } from "../../filter/rule-syntax.ts";
import { RuleEngine, withoutBadfiltered, type Asker, type SourcedRule } from "./engine.ts";

function engine(lines: string[], groups: number[] | null = null): RuleEngine {
  const rules: SourcedRule[] = lines.flatMap((l) =>
    (parseRule(l) as AdRule[]).map((rule) => ({ rule, listId: 1, groups })),
  );
  return new RuleEngine(withoutBadfiltered(rules));
}

const asker = (over: Partial<Asker> = {}): Asker => ({
  ip: "192.0.2.1",
  id: null,
  hostname: () => null,
  groups: Uint32Array.of(1),
  groupNames: () => ["Default"],
  ...over,
});

/** what decides: the rule's text and its kind, or null */
function decide(e: RuleEngine, name: string, qtype = 1, who = asker()): string | null {
  const o = e.judge(name, qtype, who);
  return o === null ? null : `${o.kind} ${o.r.rule.text}`;
}

describe("rule priorities, as AdGuard Home ranks them", () => {
  const e = engine([
    "||a.example^",
    "@@||b.a.example^",
    "||imp.example^$important",
    "@@||imp.example^",
    "||both.example^$important",
    "@@||both.example^$important",
    "||rw.example^$dnsrewrite=192.0.2.9",
    "||rw.example^$dnsrewrite=rw-target.example",
    "@@||b.a.example^$dnsrewrite",
    "192.0.2.5 host.example",
    "||host.example^",
  ]);
  test("an exception beats a block; $important beats an exception; @@$important beats $important", () => {
    expect(decide(e, "x.a.example")).toBe("block ||a.example^");
    expect(decide(e, "c.b.a.example")).toBe("allow @@||b.a.example^");
    expect(decide(e, "imp.example")).toBe("block ||imp.example^$important");
    expect(decide(e, "both.example")).toBe("allow @@||both.example^$important");
  });
  test("a CNAME rewrite comes before an address one; a network rule before a hosts line", () => {
    expect(decide(e, "rw.example")).toBe("rewrite ||rw.example^$dnsrewrite=rw-target.example");
    expect(decide(e, "host.example")).toBe("block ||host.example^");
    expect(decide(e, "nothing.example")).toBeNull();
  });
  test("address rewrites of the asked family answer together; hosts lines of the asked family first", () => {
    const m = engine([
      "||m.example^$dnsrewrite=192.0.2.1",
      "||m.example^$dnsrewrite=NOERROR;AAAA;2001:db8::1",
      "||m.example^$dnsrewrite=192.0.2.2",
      "||m.example^$dnsrewrite=192.0.2.3",
      "@@||m.example^$dnsrewrite=192.0.2.3",
      "||m.example^$dnsrewrite=192.0.2.1",
      "192.0.2.8 h.example",
      "2001:db8::8 h.example",
      "192.0.2.9 h.example",
    ]);
    const all = (name: string, qtype: number) => {
      const o = m.judge(name, qtype, asker());
      return o?.kind === "rewrite" ? (o.all ?? [o.r]).map((r) => r.rule.rewrite!.value) : null;
    };
    expect(all("m.example", 1)).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(all("m.example", 28)).toEqual(["2001:db8::1"]);
    expect(all("h.example", 1)).toEqual(["192.0.2.8", "192.0.2.9"]);
    expect(all("h.example", 28)).toEqual(["2001:db8::8"]);
  });
  test("patterns are tried through their union, then one by one", () => {
    const r = engine(["/^a[0-9]\\./", "/^b[0-9]\\./", "||w*.example^"]);
    expect(decide(r, "b1.example")).toBe("block /^b[0-9]\\./");
    expect(decide(r, "x.www.example")).toBe("block ||w*.example^");
    expect(decide(r, "c1.example")).toBeNull();
  });
  test("$badfilter removes the rule it names, in any list", () => {
    const b = engine(["||gone.example^$dnstype=A", "||gone.example^$dnstype=A,badfilter", "||kept.example^"]);
    expect(decide(b, "gone.example")).toBeNull();
    expect(decide(b, "kept.example")).toBe("block ||kept.example^");
  });
});

describe("conditions", () => {
  test("$client by subnet, excluded address, client ID, host name and group name", () => {
    const e = engine([
      "||net.example^$client=192.0.2.0/24",
      "||notme.example^$client=~192.0.2.1",
      "||id.example^$client=phone",
      "||named.example^$client='Kid tablet'",
      "||grp.example^$client=kids",
    ]);
    expect(decide(e, "net.example")).toBe("block ||net.example^$client=192.0.2.0/24");
    expect(decide(e, "net.example", 1, asker({ ip: "198.51.100.1" }))).toBeNull();
    expect(decide(e, "notme.example")).toBeNull();
    expect(decide(e, "notme.example", 1, asker({ ip: "192.0.2.2" }))).not.toBeNull();
    expect(decide(e, "id.example", 1, asker({ id: "phone" }))).not.toBeNull();
    expect(decide(e, "id.example")).toBeNull();
    expect(decide(e, "named.example", 1, asker({ hostname: () => "kid tablet" }))).not.toBeNull();
    expect(decide(e, "grp.example", 1, asker({ groupNames: () => ["Kids"] }))).not.toBeNull();
    expect(decide(e, "grp.example")).toBeNull();
  });
  test("$dnstype and $denyallow; a list's groups", () => {
    const e = engine(["||t.example^$dnstype=AAAA", "*$denyallow=com|net,dnstype=TXT"]);
    expect(decide(e, "t.example", 28)).not.toBeNull();
    expect(decide(e, "t.example", 1)).toBeNull();
    expect(decide(e, "x.org", 16)).not.toBeNull();
    expect(decide(e, "x.com", 16)).toBeNull();
    const g = engine(["||g.example^"], [1]);
    expect(decide(g, "g.example")).toBeNull();
    expect(decide(g, "g.example", 1, asker({ groups: Uint32Array.of(2) }))).not.toBeNull();
  });
});
