import { expect, test } from "bun:test";
import { parseHints } from "./hints.ts";

const text = (n: Uint8Array) => Buffer.from(n).toString("latin1");

test("a named.root file gives each root NS name with its A and AAAA addresses", () => {
  const r = parseHints(
    [
      "; formerly NS.INTERNIC.NET",
      ".                        3600000      NS    A.ROOT-SERVERS.NET.",
      "A.ROOT-SERVERS.NET.      3600000      A     198.41.0.4",
      "A.ROOT-SERVERS.NET.      3600000      AAAA  2001:503:ba3e::2:30",
      ".                        3600000      NS    B.ROOT-SERVERS.NET.",
      "B.ROOT-SERVERS.NET.      3600000      A     170.247.170.2 ; a comment",
    ].join("\n"),
  );
  if (typeof r === "string") throw new Error(r);
  expect(r.map((s) => [text(s.name), s.addrs])).toEqual([
    ["\x01a\x0croot-servers\x03net\x00", ["198.41.0.4", "2001:503:ba3e::2:30"]],
    ["\x01b\x0croot-servers\x03net\x00", ["170.247.170.2"]],
  ]);
});

test("a file without a usable address says so", () => {
  expect(parseHints(". NS a.root.\na.root. A 999.1.1.1\n")).toBe("no root server with an address in it");
});
