// Source ports from the CSPRNG over the kernel's ephemeral range, less its reserved ports (source-port.ts).
import { expect, test } from "bun:test";
import { parseRange, randomPort } from "./source-port.ts";

test("parseRange reads ip_local_port_range and ip_local_reserved_ports; anything odd gives Linux's default", () => {
  const r = parseRange("40000\t40009\n", "40002,40005-40007,1000-2000,50000\n");
  expect([r.lo, r.hi, [...r.reserved].sort()]).toEqual([40000, 40009, [40002, 40005, 40006, 40007]]);
  for (const bad of ["", "60999 32768", "80 90", "1024 70000", "x y"]) {
    const d = parseRange(bad, "");
    expect([d.lo, d.hi]).toEqual([32768, 60999]);
  }
});

test("randomPort draws every free port of the range about as often, and never a reserved one", () => {
  const r = parseRange("40000 40009", "40002,40005-40007");
  const counts = new Map<number, number>();
  const draws = 60_000;
  for (let i = 0; i < draws; i++) {
    const p = randomPort(r);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  expect([...counts.keys()].sort()).toEqual([40000, 40001, 40003, 40004, 40008, 40009]);
  // 10,000 expected each; a bias of the modulo kind (or a weak generator) shows far beyond ±5 %
  for (const c of counts.values()) expect(Math.abs(c - draws / 6)).toBeLessThan(500);
});

test("randomPort leaves the choice to the kernel (0) when every port is reserved", () => {
  expect(randomPort(parseRange("40000 40001", "40000-40001"))).toBe(0);
});
