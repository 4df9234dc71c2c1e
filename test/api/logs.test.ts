// The three logs of /api/logs/* each hold their own part, as Pi-hole's dnsmasq log, FTL.log and
// webserver.log do: DNS and DHCP lines in `dnsmasq`, the HTTP listeners' in `webserver`, the rest
// (start-up, the API's actions, gravity) in `ftl`; tailed with nextID.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

interface LogReply {
  log: Array<{ timestamp: number; message: string; prio: string | null }>;
  nextID: number;
}
const tail = async (name: string, nextID = 0) =>
  (await (await moat.api(`/api/logs/${name}?nextID=${nextID}`)).json()) as LogReply;

test("DNS lines are in the dnsmasq log, the listeners' in the webserver log, the API's actions in the FTL log", async () => {
  // no upstream is set: the DNS side warns at start (Pi-hole's dnsmasq says the same in its log)
  const dns = await tail("dnsmasq");
  expect(dns.log.some((l) => l.message.startsWith("no upstream servers configured") && l.prio === "WARNING")).toBe(
    true,
  );
  const web = await tail("webserver");
  expect(web.log.some((l) => l.message === `listening on http://127.0.0.1:${moat.httpPort}/api`)).toBe(true);
  expect(web.log.some((l) => /no upstream/.test(l.message))).toBe(false);

  const ftl = await tail("ftl");
  const r = await moat.api("/api/action/restartdns", { method: "POST" });
  expect(r.status).toBe(200);
  const after = await tail("ftl", ftl.nextID);
  expect(after.log.map((l) => l.message)).toContain("restartdns: reloading lists and DNS service");
  expect((await tail("dnsmasq", dns.nextID)).log.some((l) => /restartdns/.test(l.message))).toBe(false);
});
