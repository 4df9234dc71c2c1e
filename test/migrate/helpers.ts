// What the migration tests share: `moat migrate` through the real CLI, a real Moat started on the
// migrated data directory, and questions a client would ask it (dig from a chosen loopback address).
import { join } from "node:path";
import { BUN, ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { runDig } from "../dns/helpers.ts";
import { scratch } from "./fixtures.ts";

export const moatCli = (...args: string[]) => run([BUN, join(ROOT, "src/main.ts"), ...args]);

/** Migrates `source` into a new data directory and starts Moat on it; the CLI's output too. */
export async function migrated(what: "pihole" | "adguardhome", source: string, ...flags: string[]) {
  const dataDir = scratch("target");
  const cli = await moatCli("migrate", what, source, "--data-dir", dataDir, ...flags);
  if (cli.code !== 0) throw new Error(`moat migrate failed (${cli.code}):\n${cli.stdout}\n${cli.stderr}`);
  const moat = await startMoat({ dataDir });
  return { moat, dataDir, cli };
}

/** The A answer (first address, or the CNAME chain's names and the address) and the rcode, asked from `from`. */
export async function answer(moat: MoatProcess, name: string, from = "127.0.0.3"): Promise<string> {
  const out = await runDig([
    "@127.0.0.1",
    "-p",
    String(moat.dnsPort),
    "-b",
    from,
    "+tries=1",
    "+time=3",
    "+noall",
    "+answer",
    "+comments",
    name,
    "A",
  ]);
  const status = /status: (\w+)/.exec(out)?.[1] ?? "NO ANSWER";
  const records = [...out.matchAll(/^\S+\s+\d+\s+IN\s+(A|CNAME)\s+(\S+)$/gm)].map((m) => m[2]!.replace(/\.$/, ""));
  return status === "NOERROR" ? records.join(" ") : status;
}

/** GET as JSON, with a session when the migrated install had a password. */
export async function getJson(moat: MoatProcess, path: string, sid?: string): Promise<any> {
  const r = await moat.api(path, { headers: sid ? { sid } : {} });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Logs in with `password`; the session id. */
export async function loginSid(moat: MoatProcess, password: string): Promise<string> {
  const r = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password }) });
  const body = (await r.json()) as { session: { valid: boolean; sid: string } };
  if (!body.session.valid) throw new Error("the password was not accepted");
  return body.session.sid;
}
