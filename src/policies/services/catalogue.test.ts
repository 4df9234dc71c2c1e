// The blocked-services catalogue on its own: every rule parses, ids and codes are unique, and the compiled
// set matches each service's main domain (and a name below it) for a group that picked it, and nothing for
// a group that did not.
import { describe, expect, test } from "bun:test";
import { DomainSet, hashName } from "../../filter/domainset.ts";
import { nameToWire } from "../../net/dns-name.ts";
import { SERVICES } from "./catalogue.ts";
import { serviceSetData } from "./compile.ts";
import { ruleWire, serviceById, serviceOfListId } from "./rules.ts";

/** the compiled set's id for a name or the nearest parent it holds (as the DNS policy's subtree match does) */
function matchSubtree(set: DomainSet, name: string, groups: Uint32Array): number {
  const wire = nameToWire(name)!;
  for (let o = 0; wire[o] !== 0; o += wire[o]! + 1) {
    const sub = wire.subarray(o);
    const id = set.match(sub, hashName(sub), groups);
    if (id >= 0) return id;
  }
  return -1;
}

describe("blocked services catalogue", () => {
  test("has at least 40 services with unique ids and codes, each in a known category", () => {
    expect(SERVICES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SERVICES.map((s) => s.id)).size).toBe(SERVICES.length);
    expect(new Set(SERVICES.map((s) => s.code)).size).toBe(SERVICES.length);
    for (const s of SERVICES) {
      expect(s.code).toBeGreaterThan(0);
      expect(s.id).toMatch(/^[a-z0-9]+$/);
      expect(["video", "social", "games", "chat", "shopping", "streaming", "ai", "other"]).toContain(s.category);
    }
  });

  test("has the services people ask for", () => {
    for (const id of [
      "youtube",
      "tiktok",
      "instagram",
      "facebook",
      "snapchat",
      "twitter",
      "reddit",
      "discord",
      "twitch",
      "netflix",
      "disneyplus",
      "roblox",
      "fortnite",
      "minecraft",
      "steam",
      "playstation",
      "xbox",
      "whatsapp",
      "telegram",
      "signal",
      "amazon",
      "ebay",
      "aliexpress",
      "temu",
      "shein",
      "spotify",
      "pinterest",
      "tumblr",
      "9gag",
      "chatgpt",
      "claude",
      "gemini",
      "copilot",
      "characterai",
    ])
      expect(serviceById(id)?.id).toBe(id);
  });

  test("every rule parses as ||domain^ and no service repeats a domain", () => {
    for (const s of SERVICES) {
      expect(s.rules.length).toBeGreaterThan(0);
      for (const r of s.rules) expect({ rule: r, ok: ruleWire(r) !== null }).toEqual({ rule: r, ok: true });
      expect(new Set(s.rules).size).toBe(s.rules.length);
    }
    expect(ruleWire("tiktok.com")).toBeNull();
    expect(ruleWire("||tik tok.com^")).toBeNull();
  });

  test("each service's domains and the names below them are matched for a group that picked it, only", () => {
    // group 0 (bit 0) picks every service; group 1 (bit 1) picks none
    const picks = SERVICES.map((s) => ({ g: 0, service: s.id }));
    const set = new DomainSet(
      serviceSetData(
        picks,
        new Map([
          [0, 0],
          [1, 1],
        ]),
        1,
      ),
    );
    const picked = Uint32Array.of(1),
      other = Uint32Array.of(2);
    for (const s of SERVICES) {
      for (const r of s.rules) {
        const domain = r.slice(2, -1);
        const hit = matchSubtree(set, domain, picked);
        // a domain both services name reports one of them; the catalogue keeps domains to one service
        expect({ domain, service: serviceOfListId(-hit)?.id }).toEqual({ domain, service: s.id });
        expect(matchSubtree(set, `www.${domain}`, picked)).toBe(s.code);
        expect(matchSubtree(set, domain, other)).toBe(-1);
      }
    }
    expect(matchSubtree(set, "example.com", picked)).toBe(-1);
    expect(matchSubtree(set, "nottiktok.com", picked)).toBe(-1);
  });

  test("an unknown service id or a disabled group compiles to nothing", () => {
    const set = new DomainSet(
      serviceSetData(
        [
          { g: 0, service: "no-such-service" },
          { g: 7, service: "tiktok" },
        ],
        new Map([[0, 0]]),
        1,
      ),
    );
    expect(matchSubtree(set, "tiktok.com", Uint32Array.of(0xffffffff))).toBe(-1);
  });
});
