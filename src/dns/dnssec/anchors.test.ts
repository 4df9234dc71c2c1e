import { describe, expect, test } from "bun:test";
import { defaults } from "../../config/schema.ts";
import { trustAnchor } from "../../config/validators.ts";
import { parseAnchor } from "./anchors.ts";

describe("trust anchors", () => {
  test("the IANA root anchors and zone-file variants parse", () => {
    for (const line of defaults().dns.trustAnchors) {
      const a = parseAnchor(line);
      expect(typeof a).toBe("object");
      if (typeof a === "object")
        expect([a.tag, a.algorithm, a.digestType, a.digest.length]).toContainValues([8, 2, 32]);
    }
    const a = parseAnchor("Secure.Test. 3600 IN DS 1234 13 4 ab CD");
    expect(typeof a === "object" && [a.owner.length, a.tag, a.algorithm, a.digestType, a.digest.length]).toEqual([
      13, 1234, 13, 4, 2,
    ]);
  });
  test("bad anchors say why", () => {
    expect(parseAnchor(". IN DNSKEY 257 3 8 AAAA")).toBe('expected "DS" after the owner');
    expect(parseAnchor(". IN DS x 8 2 AB")).toBe("key tag, algorithm and digest type must be numbers");
    expect(parseAnchor(". IN DS 1 8 2 XYZ")).toBe("the digest must be hexadecimal");
  });
  test("the config check takes what the parser takes", () => {
    for (const line of [...defaults().dns.trustAnchors, "secure.test. 3600 IN DS 1234 13 4 ab CD"])
      expect(trustAnchor(line)).toBeNull();
    for (const line of [". IN DNSKEY 257 3 8 AAAA", ". IN DS x 8 2 AB", ". IN DS 1 8 2 XYZ", ". IN DS 1 8 2"])
      expect(trustAnchor(line)).toContain("not a DS record");
  });
});
