// A resolver with no upstream says so: the SERVFAIL carries EDE 22 "no upstream configured" (RFC 8914),
// the log says it at start, and /api/info/messages has it until upstreams are set.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { runDig } from "./helpers.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

const messages = async () =>
  ((await (await moat.api("/api/info/messages")).json()) as { messages: Array<{ type: string; plain: string }> })
    .messages;

test("no upstream: SERVFAIL with EDE 22 and its text, a log line at start, an API message until upstreams are set", async () => {
  const out = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "+tries=1", "+time=5", "example.com", "A"]);
  expect(out).toContain("status: SERVFAIL");
  expect(out).toMatch(/EDE: 22 \(No Reachable Authority\): \(no upstream configured\)/);
  // local names still answer
  expect((await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "+short", "pi.hole", "A"])).trim()).toMatch(
    /^\d+\.\d+\.\d+\.\d+$/,
  );
  expect(await moat.outputWith("no upstream servers configured")).toContain(
    "no upstream servers configured (dns.upstreams)",
  );
  expect(
    (await messages()).filter((m) => m.type === "DNSMASQ_WARN" && m.plain === "no upstream servers configured"),
  ).toHaveLength(1);

  const r = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { upstreams: ["127.0.0.1#9"] } } }),
  });
  expect(r.status).toBe(200);
  expect((await messages()).filter((m) => m.plain === "no upstream servers configured")).toHaveLength(0);
  // an upstream that does not answer is a plain SERVFAIL, without the no-upstream EDE
  const failed = await runDig(["@127.0.0.1", "-p", String(moat.dnsPort), "+tries=1", "+time=10", "example.org", "A"]);
  expect(failed).toContain("status: SERVFAIL");
  expect(failed).not.toContain("no upstream configured");
});
