// Regex rules run on a linear-time engine (re2js): a pattern that makes a backtracking engine take
// exponential time, ^(a+)+b$, against 40-letter names must not stall the DNS thread (it took ~0.5 s
// a query before, and every other query waited). The rules still decide as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { ask, firstAddress, until } from "./helpers.ts";

const FWD = "192.0.2.66";
let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ configToml: `[dns]\nupstreams = ["${up.address}"]\n` });
  for (const domain of ["^(a+)+b$", "^ads?[[:digit:]]+\\."]) {
    expect((await call(moat, "POST", "/api/domains/deny/regex", { domain })).status).toBe(201);
  }
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

test("^(a+)+b$ against 40-letter names: every query answered at once, the rule still blocks what it matches", async () => {
  await until(async () => firstAddress(await ask(moat.dnsPort, "aaab")) === "0.0.0.0", 15000, "the regex rules");
  const evil = Array.from({ length: 40 }, (_, i) => `${"a".repeat(40)}.evil${i}.test`.replace(/^a/, "A"));
  const t0 = performance.now();
  const replies = await Promise.all([...evil, "x.normal.test"].map((n) => ask(moat.dnsPort, n, { timeoutMs: 15000 })));
  const ms = performance.now() - t0;
  // a backtracking engine needs ~0.5 s for each (20 s in all); a linear one a few ms
  expect(ms).toBeLessThan(8000);
  for (const r of replies) expect(firstAddress(r)).toBe(FWD);
  expect(firstAddress(await ask(moat.dnsPort, `${"a".repeat(40)}b`))).toBe("0.0.0.0");
  expect(firstAddress(await ask(moat.dnsPort, "ad12.example.test"))).toBe("0.0.0.0");
  expect(firstAddress(await ask(moat.dnsPort, "adx.example.test"))).toBe(FWD);
});

test("a pattern RE2 cannot run (a backreference) is refused by the API with regex_error", async () => {
  const r = await call(moat, "POST", "/api/domains/deny/regex", { domain: "^(a)\\1\\.test$" });
  expect(r.status).toBe(400);
  expect(r.json.error.key).toBe("regex_error");
  expect(r.json.error.hint).toContain("linear-time");
});
