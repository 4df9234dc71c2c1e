// Fleet test helpers: Moat nodes joined to one redis-server, and dig against any of them.
import { afterAll, beforeAll } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { runDig, until } from "../dns/helpers.ts";
import { call } from "../lists/helpers.ts";

function fleetToml(opts: { redis: string; node: string; upstream: string; postgres?: string; extra?: string }): string {
  return `[dns]
  upstreams = ["${opts.upstream}"]
[dns.rateLimit]
  count = 0
[fleet]
  redis = "${opts.redis}"
  node = "${opts.node}"
${opts.postgres ? `  postgres = "${opts.postgres}"\n` : ""}${opts.extra ?? ""}`;
}

async function startNode(opts: {
  redis: string;
  node: string;
  upstream: string;
  postgres?: string;
  dataDir?: string;
}): Promise<MoatProcess> {
  // a free port can be taken by another process between the check and the start: one more try
  for (let attempt = 0; ; attempt++) {
    try {
      return await startMoat({ configToml: fleetToml(opts), dataDir: opts.dataDir });
    } catch (e) {
      if (attempt > 0 || !/already in use/.test((e as Error).message)) throw e;
    }
  }
}

/** Starts the named nodes; on failure stops those that started, so no process outlives the test. */
export async function startNodes(
  names: string[],
  opts: { redis: string; upstream: string; postgres?: string },
): Promise<MoatProcess[]> {
  const started = await Promise.allSettled(names.map((node) => startNode({ ...opts, node })));
  const ok = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = started.find((r) => r.status === "rejected");
  if (failed) {
    await Promise.all(ok.map((n) => n.dispose()));
    throw (failed as PromiseRejectedResult).reason;
  }
  return ok;
}

export interface ThreeNodes {
  redis: RedisServer;
  up: Upstream;
  nodes: MoatProcess[];
}

/** Nodes n1–n3 on one redis-server, forwarding to one upstream that answers `fwd`: started before a test file's tests, disposed after them. */
export function threeNodes(fwd: string): ThreeNodes {
  const f = { nodes: [] as MoatProcess[] } as ThreeNodes;
  beforeAll(async () => {
    [f.redis, f.up] = await Promise.all([startRedis(), startUpstream({ addr: fwd })]);
    f.nodes = await startNodes(["n1", "n2", "n3"], { redis: f.redis.url, upstream: f.up.address });
  }, 60000);
  afterAll(async () => {
    await Promise.all([...f.nodes.map((n) => n.dispose()), f.up?.stop(), f.redis?.dispose()]);
  });
  return f;
}

/** The first address dig gets for `name` from the node (one try), or "" when none. */
export async function dig(node: MoatProcess, name: string): Promise<string> {
  const out = await runDig(["@127.0.0.1", "-p", String(node.dnsPort), name, "A", "+short", "+tries=1", "+time=2"]);
  return out.trim().split("\n")[0] ?? "";
}

/** Waits until dig on `node` answers `name` with `addr`. */
export async function untilDig(node: MoatProcess, name: string, addr: string, timeoutMs = 8000): Promise<void> {
  let last = "";
  try {
    await until(
      async () => (last = await dig(node, name)) === addr,
      timeoutMs,
      `${name} -> ${addr} on port ${node.dnsPort}`,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message} (last answer ${JSON.stringify(last)})`);
  }
}

export async function fleetView(node: MoatProcess): Promise<any> {
  const r = await call(node, "GET", "/api/fleet");
  if (r.status !== 200) throw new Error(`GET /api/fleet: ${r.status}`);
  return r.json.fleet;
}
