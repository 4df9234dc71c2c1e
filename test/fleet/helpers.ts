// Fleet test helpers: Moat nodes joined to one redis-server, and dig against any of them.
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { runDig, until } from "../dns/helpers.ts";
import { call } from "../lists/helpers.ts";

export function fleetToml(opts: { redis: string; node: string; upstream: string; postgres?: string; extra?: string }): string {
  return `[dns]
  upstreams = ["${opts.upstream}"]
[dns.rateLimit]
  count = 0
[fleet]
  redis = "${opts.redis}"
  node = "${opts.node}"
${opts.postgres ? `  postgres = "${opts.postgres}"\n` : ""}${opts.extra ?? ""}`;
}

export function startNode(opts: { redis: string; node: string; upstream: string; postgres?: string; dataDir?: string }): Promise<MoatProcess> {
  return startMoat({ configToml: fleetToml(opts), dataDir: opts.dataDir });
}

/** The first address dig gets for `name` from the node (one try), or "" when none. */
export async function dig(node: MoatProcess, name: string): Promise<string> {
  const out = await runDig(["@127.0.0.1", "-p", String(node.dnsPort), name, "A", "+short", "+tries=1", "+time=2"]);
  return out.trim().split("\n")[0] ?? "";
}

/** Waits until dig on `node` answers `name` with `addr`. */
export async function untilDig(node: MoatProcess, name: string, addr: string, timeoutMs = 8000): Promise<void> {
  let last = "";
  await until(async () => (last = await dig(node, name)) === addr, timeoutMs, `${name} -> ${addr} on ${node.dnsPort} (last answer ${JSON.stringify(last)})`).catch((e) => {
    throw new Error(`${(e as Error).message}`);
  });
}

export async function fleetView(node: MoatProcess): Promise<any> {
  const r = await call(node, "GET", "/api/fleet");
  if (r.status !== 200) throw new Error(`GET /api/fleet: ${r.status}`);
  return r.json.fleet;
}
