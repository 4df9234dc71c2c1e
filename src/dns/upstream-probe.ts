// The "Test upstreams" action (POST /api/action/upstreams/test): one query to a server written as
// dns.upstreams takes it, before it is saved, outside the forwarder's order and statistics, and what
// came back in words: the rcode, the answer's records and the time. A per-domain entry
// (`[/corp.example/]10.0.0.1`) tests each of its servers with its first domain, the name it is for.
import { parsePerDomain } from "../config/upstream-syntax.ts";
import { nameToWire } from "../net/dns-name.ts";
import { compressV6 } from "../net/ip.ts";
import { setU16 } from "./reply.ts";
import { RCODE, TYPE, readName, walkMessage } from "./wire.ts";

export interface UpstreamProbe {
  /** the server as tested (one server of a per-domain entry) */
  upstream: string;
  /** the name asked */
  name: string;
  /** an answer came back (of any rcode) */
  ok: boolean;
  /** the answer's rcode (NOERROR, NXDOMAIN, ...), null without an answer */
  rcode: string | null;
  /** the answer section in words ("A 192.0.2.1", "CNAME target.example"), at most 16 */
  answers: string[];
  /** ms until the answer came, null without one */
  time: number | null;
  /** why there is no answer, null with one */
  error: string | null;
}

/** Sends one query to one server (the forwarder's): its answer, null on timeout, or why it is no server. */
export type Exchange = (server: string, query: Uint8Array) => Promise<Uint8Array | null> | string;

const RCODE_NAME = new Map<number, string>(Object.entries(RCODE).map(([k, v]) => [v, k]));
const TYPE_NAME = new Map<number, string>(Object.entries(TYPE).map(([k, v]) => [v, k]));

function query(name: string, type: number): Uint8Array | null {
  const wire = nameToWire(name);
  if (!wire) return null;
  const q = new Uint8Array(12 + wire.length + 4);
  q[2] = 0x01; // RD
  q[5] = 1;
  q.set(wire, 12);
  setU16(q, 12 + wire.length, type);
  setU16(q, 14 + wire.length, 1);
  return q;
}

/** One answer record's type and data in words. */
function recordText(a: Uint8Array, type: number, at: number, len: number): string {
  const t = TYPE_NAME.get(type) ?? `TYPE${type}`;
  if (type === TYPE.A && len === 4) return `A ${a.subarray(at, at + 4).join(".")}`;
  if (type === TYPE.AAAA && len === 16) {
    const g: string[] = [];
    for (let i = 0; i < 16; i += 2) g.push(((a[at + i]! << 8) | a[at + i + 1]!).toString(16));
    return `AAAA ${compressV6(g)}`;
  }
  if (type === TYPE.CNAME || type === TYPE.PTR || type === TYPE.NS) return `${t} ${readName(a, at) ?? "?"}`;
  return `${t} (${len} bytes)`;
}

async function probeOne(exchange: Exchange, server: string, name: string, type: number): Promise<UpstreamProbe> {
  const out: UpstreamProbe = { upstream: server, name, ok: false, rcode: null, answers: [], time: null, error: null };
  const q = query(name, type);
  if (!q) return { ...out, error: "not a name that can be asked" };
  const t0 = performance.now();
  const pending = exchange(server, q);
  if (typeof pending === "string") return { ...out, error: pending };
  const a = await pending;
  const m = a && walkMessage(a);
  if (!a || !m) return { ...out, error: "no answer within the upstream timeout" };
  out.time = Math.round((performance.now() - t0) * 10) / 10;
  out.ok = true;
  out.rcode = RCODE_NAME.get(m.rcode) ?? `RCODE${m.rcode}`;
  for (const r of m.records)
    if (r.section === 0 && out.answers.length < 16) out.answers.push(recordText(a, r.type, r.rdata, r.rdlen));
  return out;
}

/** Each server of `entries` asked for `name` (a per-domain entry's servers for its first domain), at once. */
export function probeUpstreams(
  exchange: Exchange,
  entries: readonly string[],
  name: string,
  type: "A" | "AAAA",
): Promise<UpstreamProbe[]> {
  const jobs: Promise<UpstreamProbe>[] = [];
  for (const e of entries) {
    const pd = parsePerDomain(e);
    if (pd === null) jobs.push(probeOne(exchange, e, name, TYPE[type]));
    else if (typeof pd === "string") jobs.push(Promise.resolve({ ...failed(e, name), error: pd }));
    else if (!pd.servers.length)
      jobs.push(Promise.resolve({ ...failed(e, name), error: "# sends these names to the general upstreams" }));
    else {
      const domain = pd.domains[0]!.replace(/^\*\./, "");
      for (const s of pd.servers) jobs.push(probeOne(exchange, s, domain, TYPE[type]));
    }
  }
  return Promise.all(jobs);
}

function failed(upstream: string, name: string): UpstreamProbe {
  return { upstream, name, ok: false, rcode: null, answers: [], time: null, error: null };
}
