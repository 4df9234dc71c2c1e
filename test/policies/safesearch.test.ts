// The safe-search policy (src/policies/safesearch/) against the real server: each engine's host answered with its
// documented CNAME and the target's records, for the group's clients only (UDP, and DoH with a client ID).
import { describe, expect, test } from "bun:test";
import { call } from "../lists/helpers.ts";
import { decodeReply, encodeQuery } from "../dns/helpers.ts";
import { ca, digAnswers, FWD, t, up, useFamily } from "./family.ts";

useFamily();

describe("safe search", () => {
  test("GET /api/safesearch lists the engines; PUT sets a group's; unknown or contradictory picks are refused", async () => {
    const e = await call(t.moat, "GET", "/api/safesearch");
    expect(e.json.engines.map((x: { id: string }) => x.id)).toEqual([
      "google",
      "bing",
      "duckduckgo",
      "youtube",
      "youtube-moderate",
    ]);
    expect(e.json.engines[0].hosts).toContain("www.google.co.uk");
    const r = await call(t.moat, "PUT", "/api/safesearch/groups/kids", {
      engines: ["google", "bing", "duckduckgo", "youtube"],
    });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", engines: ["bing", "duckduckgo", "google", "youtube"] }]);
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/teens", { engines: ["youtube-moderate"] })).status).toBe(
      200,
    );
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/kids", { engines: ["altavista"] })).status).toBe(400);
    const both = await call(t.moat, "PUT", "/api/safesearch/groups/kids", { engines: ["youtube", "youtube-moderate"] });
    expect(both.status).toBe(400);
    expect((await call(t.moat, "PUT", "/api/safesearch/groups/nobody", { engines: [] })).status).toBe(404);
  });

  test("UDP: each engine's host answers its documented CNAME and the target's address, for the group's client only", async () => {
    for (const [host, target] of [
      ["www.google.com", "forcesafesearch.google.com"],
      ["www.google.co.uk", "forcesafesearch.google.com"],
      ["www.google.com.br", "forcesafesearch.google.com"],
      ["www.bing.com", "strict.bing.com"],
      ["duckduckgo.com", "safe.duckduckgo.com"],
      ["www.youtube.com", "restrict.youtube.com"],
      ["m.youtube.com", "restrict.youtube.com"],
    ] as const) {
      expect({ host, a: await digAnswers(host, "127.0.0.2") }).toEqual({
        host,
        a: [
          [`${host}.`, "CNAME", `${target}.`],
          [`${target}.`, "A", FWD],
        ],
      });
    }
    // the teens' group enforces only YouTube's moderate mode
    expect(await digAnswers("www.youtube.com", "127.0.0.3")).toEqual([
      ["www.youtube.com.", "CNAME", "restrictmoderate.youtube.com."],
      ["restrictmoderate.youtube.com.", "A", FWD],
    ]);
    expect(await digAnswers("www.google.com", "127.0.0.3")).toEqual([["www.google.com.", "A", FWD]]);
    // AAAA: the target's AAAA
    const six = await digAnswers("www.bing.com", "127.0.0.2", "AAAA");
    expect(six[0]).toEqual(["www.bing.com.", "CNAME", "strict.bing.com."]);
    expect(six[1]?.slice(0, 2)).toEqual(["strict.bing.com.", "AAAA"]);
    // the target was asked upstream; the kids' host name never was
    expect(up.count("forcesafesearch.google.com")).toBeGreaterThan(0);
    expect(up.count("www.google.co.uk")).toBe(0);
  });

  test("DoH with a client ID gets the CNAME, another ID does not", async () => {
    const ask = async (id: string) => {
      const r = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query/${id}`, {
        method: "POST",
        body: encodeQuery("www.google.de"),
        headers: { "content-type": "application/dns-message" },
        tls: { ca },
      } as RequestInit);
      return decodeReply(new Uint8Array(await r.arrayBuffer())).answers.map((a) => [
        a.name,
        a.type,
        (a as { data?: unknown }).data,
      ]);
    };
    expect(await ask("kid")).toEqual([
      ["www.google.de", "CNAME", "forcesafesearch.google.com"],
      ["forcesafesearch.google.com", "A", FWD],
    ]);
    expect(await ask("teen")).toEqual([["www.google.de", "A", FWD]]);
  });
});
