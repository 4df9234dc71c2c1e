// Wildcard local records (`*.wild.lan` in dns.hosts and as a dns.cnameRecords alias, AdGuard Home's
// wildcard rewrites) through real DNS, and the checks that refuse malformed ones through the API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;

const hosts = [
  "192.168.1.20 *.wild.test",
  "192.168.1.21 exact.wild.test",
  "192.168.1.22 *.deep.wild.test",
  "fd00::20 *.wild.test",
  "192.168.1.30 target.lan",
];
const cnames = ["*.cdn.lan,target.lan", "*.away.lan,www.example.test"];

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.1" });
  moat = await startMoat({
    configToml: `[dns]\nupstreams = ["${up.address}"]\nhosts = ${JSON.stringify(hosts)}\ncnameRecords = ${JSON.stringify(cnames)}\n`,
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

test("a wildcard answers every name below its domain; an exact record and a longer wildcard come first", async () => {
  expect(firstAddress(await ask(moat.dnsPort, "tv.wild.test"))).toBe("192.168.1.20");
  expect(firstAddress(await ask(moat.dnsPort, "a.b.WILD.test"))).toBe("192.168.1.20");
  expect(firstAddress(await ask(moat.dnsPort, "tv.wild.test", { type: "AAAA" }))).toBe("fd00::20");
  expect(firstAddress(await ask(moat.dnsPort, "exact.wild.test"))).toBe("192.168.1.21");
  expect(firstAddress(await ask(moat.dnsPort, "x.deep.wild.test"))).toBe("192.168.1.22");
  // the domain itself is not below itself: it goes upstream
  expect(firstAddress(await ask(moat.dnsPort, "wild.test"))).toBe("192.0.2.1");
  expect(up.count("wild.test")).toBe(1);
  expect(up.count("tv.wild.test")).toBe(0);
});

test("a wildcard CNAME points every name below it to another name, with the target's local records", async () => {
  const r = await ask(moat.dnsPort, "img.cdn.lan");
  expect(r.answers.map((a) => [a.type, a.name, (a as { data?: unknown }).data])).toEqual([
    ["CNAME", "img.cdn.lan", "target.lan"],
    ["A", "target.lan", "192.168.1.30"],
  ]);
  // a target that is no local record: the client follows the CNAME itself
  const away = await ask(moat.dnsPort, "x.y.away.lan");
  expect(away.answers.map((a) => [a.type, (a as { data?: unknown }).data])).toEqual([["CNAME", "www.example.test"]]);
});

test("malformed wildcards are refused with the reason", async () => {
  for (const [dns, words] of [
    [{ hosts: ["192.168.1.9 *bad.lan"] }, "invalid host name"],
    [{ hosts: ["192.168.1.9 a.*.lan"] }, "invalid host name"],
    [{ cnameRecords: ["x.lan,*.lan"] }, "invalid domain"],
    [{ cnameRecords: ["*.a.lan,b.a.lan"] }, "covers its own target"],
  ] as const) {
    const r = await moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config: { dns } }) });
    expect(r.status).toBe(400);
    const e = ((await r.json()) as { error: { key: string; message: string; hint: unknown } }).error;
    expect(`${e.message} ${JSON.stringify(e.hint)}`).toContain(words);
  }
  expect(firstAddress(await ask(moat.dnsPort, "still.wild.test"))).toBe("192.168.1.20");
});
