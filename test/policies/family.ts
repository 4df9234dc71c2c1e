// The family of group policies against the real server, shared by test/policies/*.test.ts: one Moat with DNS over
// HTTPS, two upstreams, the groups "kids" and "teens", and their clients: 127.0.0.2 and the client ID "kid" in
// kids, 127.0.0.3 and "teen" in teens (dig from those addresses is a client of that group).
import { afterAll, beforeAll, expect } from "bun:test";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { decodeReply, encodeQuery, runDig } from "../dns/helpers.ts";
import { startTlsMoat, type TlsMoat } from "../tls/helpers.ts";

export const FWD = "192.0.2.61";
export let t: TlsMoat;
export let up: Upstream;
export let up2: Upstream;
export const FWD2 = "192.0.2.62";
export let ca = "";

/** dig over UDP from `from`: the first A record and the EDE text, if any */
export async function digA(name: string, from: string): Promise<{ addr: string | null; ede: string | null }> {
  const out = await runDig(["@127.0.0.1", "-p", String(t.moat.dnsPort), "-b", from, "+tries=1", "+time=3", name, "A"]);
  const addr =
    new RegExp(`^${name.replace(/\./g, "\\.")}\\.\\s+\\d+\\s+IN\\s+A\\s+(\\S+)$`, "m").exec(out)?.[1] ?? null;
  const ede = /EDE: 15 \(Blocked\): \(([^)]*)\)/.exec(out)?.[1] ?? null;
  return { addr, ede };
}

/** DNS over HTTPS (RFC 8484 POST) with a client ID in the path */
export async function dohA(name: string, id: string): Promise<{ addr: string | null; ede: string | null }> {
  const r = await fetch(`https://127.0.0.1:${t.httpsPort}/dns-query/${id}`, {
    method: "POST",
    body: encodeQuery(name),
    headers: { "content-type": "application/dns-message" },
    tls: { ca },
  } as RequestInit);
  expect(r.status).toBe(200);
  const a = decodeReply(new Uint8Array(await r.arrayBuffer()));
  const rec = a.answers.find((x) => x.type === "A") as { data: string } | undefined;
  return { addr: rec?.data ?? null, ede: a.ede?.text ?? null };
}

/** dig's answer section as [owner, type, data] (TTL left out) */
export async function digAnswers(name: string, from: string, type = "A"): Promise<string[][]> {
  const out = await runDig([
    "@127.0.0.1",
    "-p",
    String(t.moat.dnsPort),
    "-b",
    from,
    "+tries=1",
    "+noall",
    "+answer",
    name,
    type,
  ]);
  return out
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith(";"))
    .map((l) => {
      const f = l.trim().split(/\s+/);
      return [f[0]!, f[3]!, f[4]!];
    });
}

/** Starts the server, upstreams, groups and clients before the file's tests, and stops them after. */
export function useFamily(): void {
  beforeAll(async () => {
    [up, up2] = await Promise.all([startUpstream({ addr: FWD }), startUpstream({ addr: FWD2 })]);
    t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address, FTLCONF_dns_blocking_edns: "TEXT" });
    ca = await Bun.file(t.caFile).text();
    const ids: Record<string, number> = {};
    for (const name of ["kids", "teens"]) {
      const g = await call(t.moat, "POST", "/api/groups", { name });
      expect(g.status).toBe(201);
      ids[name] = g.json.groups[0].id;
    }
    for (const [client, group] of [
      ["127.0.0.2", "kids"],
      ["127.0.0.3", "teens"],
      ["kid", "kids"],
      ["teen", "teens"],
    ] as const)
      expect((await call(t.moat, "POST", "/api/clients", { client, groups: [ids[group]] })).status).toBe(201);
  });

  afterAll(async () => {
    await t?.moat.dispose();
    await Promise.all([up?.stop(), up2?.stop()]);
  });
}
