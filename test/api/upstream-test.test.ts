// POST /api/action/upstreams/test: each upstream asked once, before it is saved, with its answer and
// time, against real upstream processes (and a port where nothing answers).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";

let moat: MoatProcess;
let up: Upstream;
let corp: Upstream;
let dead: number;

interface Probe {
  upstream: string;
  name: string;
  ok: boolean;
  rcode: string | null;
  answers: string[];
  time: number | null;
  error: string | null;
}

const probe = (body: unknown) => moat.api("/api/action/upstreams/test", { method: "POST", body: JSON.stringify(body) });

beforeAll(async () => {
  [up, corp] = await Promise.all([startUpstream({ addr: "192.0.2.7" }), startUpstream({ addr: "10.9.9.9" })]);
  dead = await freePort();
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
  await Promise.all([up?.stop(), corp?.stop()]);
});

test("each upstream is asked once: its answer, rcode and time, or why none came", async () => {
  const r = await probe({
    upstreams: [up.address, `127.0.0.1#${dead}`, `[/corp.test/]${corp.address}`, "[/home.test/]#"],
    domain: "Probe-1.Test.",
  });
  expect(r.status).toBe(200);
  const { upstreams } = (await r.json()) as { upstreams: Probe[] };
  expect(upstreams).toHaveLength(4);
  const [live, none, perDomain, general] = upstreams as [Probe, Probe, Probe, Probe];
  expect(live).toMatchObject({ upstream: up.address, name: "probe-1.test", ok: true, rcode: "NOERROR", error: null });
  expect(live.answers).toEqual(["A 192.0.2.7"]);
  expect(live.time).toBeGreaterThanOrEqual(0);
  expect(up.count("probe-1.test")).toBe(1);
  expect(none).toMatchObject({ ok: false, rcode: null, time: null, answers: [] });
  expect(none.error).toContain("no answer");
  // a per-domain entry's server is asked for its own domain
  expect(perDomain).toMatchObject({ upstream: corp.address, name: "corp.test", rcode: "NOERROR" });
  expect(perDomain.answers).toEqual(["A 10.9.9.9"]);
  expect(general.error).toContain("general upstreams");

  const six = await probe({ upstreams: [up.address], domain: "nx-gone.test", type: "AAAA" });
  const [nx] = ((await six.json()) as { upstreams: Probe[] }).upstreams;
  expect(nx).toMatchObject({ ok: true, rcode: "NXDOMAIN", answers: [] });
  const aaaa = await probe({ upstreams: [up.address], domain: "six.test", type: "AAAA" });
  expect(((await aaaa.json()) as { upstreams: Probe[] }).upstreams[0]!.answers).toEqual(["AAAA 2001:db8::1"]);

  // nothing was saved, and the forwarder has no such upstream
  const cfg = (await (await moat.api("/api/config/dns/upstreams")).json()) as { config: { dns: { upstreams: [] } } };
  expect(cfg.config.dns.upstreams).toEqual([]);
}, 20_000);

test("an entry that is no upstream, or a bad name, is refused in the error envelope", async () => {
  for (const [body, words] of [
    [{ upstreams: ["dns.example"] }, "Invalid upstream"],
    [{ upstreams: ["[/corp.test/]"] }, "per-domain upstream"],
    [{ upstreams: [up.address], domain: "not a name" }, "Invalid domain"],
    [{ upstreams: [] }, "upstreams"],
  ] as const) {
    const r = await probe(body);
    expect(r.status).toBe(400);
    const e = ((await r.json()) as { error: { key: string; message: string; hint: unknown } }).error;
    expect(e.key).toBe("bad_request");
    expect(`${e.message} ${JSON.stringify(e.hint)}`).toContain(words);
  }
});
