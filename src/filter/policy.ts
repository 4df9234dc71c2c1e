// The one interface every group policy implements (src/policies/, like a CoreDNS plugin): it compiles its rows
// into data for the snapshot (in the build worker), names the buffers that data moves in, loads it on each DNS
// thread, and judges a query at one of the two fixed points of the policy step (src/dns/policy.ts). The filter
// knows this interface only; the registry (src/policies/registry.ts) is handed to the FilterEngine and to the
// DNS threads, so the filter never imports a policy.
import type { Database } from "bun:sqlite";
import type { ClientResolverOptions } from "./clients.ts";
import type { RegexReply } from "./regex.ts";

/**
 * Where the policy step asks a policy: `client` before anything else, also with blocking off (a pause, a
 * group's own upstreams); `beforeAllow` before the allow list (safe search); `afterDeny` after the exact deny
 * list, before antigravity and gravity (scheduled and blocked services).
 */
export type PolicyPoint = "client" | "beforeAllow" | "afterDeny";

/** What a policy reads and sets of a query (src/dns/context.ts's QueryContext is one). */
interface PolicyQuery {
  readonly client: string;
  readonly clientId: string | null;
  /** the group upstreams the forwarder uses (1-based, 0: dns.upstreams) */
  upstreamSet: number;
}

/**
 * The name being judged: the question, the name after `_esni.`, or a name of the answer's CNAME chain. One
 * object per handler, refilled for each name (no allocation per query). A policy may widen `groups` (a schedule
 * that opens block lists): the lists after it are judged with the wider groups.
 */
export interface JudgedName {
  wire: Uint8Array;
  /** offset of each label in `wire` */
  labels: number[];
  /** hashName(wire) */
  h: number;
  name: string;
  qtype: number;
  groups: Uint32Array;
  /** the question itself (not a name of its CNAME chain, nor the name after `_esni.`) */
  question: boolean;
}

/**
 * A policy's decision, made once per policy (never per query): block with this status, reason (the EDE text)
 * and query-log list id, or answer with a CNAME to `cnameTo` (safe search).
 */
export interface PolicyVerdict {
  readonly status: number;
  readonly reason: string;
  readonly listId: number;
  /** wire name: answer with a CNAME to it and its records (src/dns/safesearch.ts) instead of blocking */
  readonly cnameTo: Uint8Array | null;
  /** the name is allowed: no list after this point blocks it (an AdGuard `@@` exception) */
  readonly allow?: boolean;
  /** the answer instead of the blocking mode's (an AdGuard $dnsrewrite) */
  readonly reply?: RegexReply | null;
  /** `reply` is an answer, not a block: no EDE 15, and the query is logged with `status` */
  readonly rewrite?: boolean;
}

/** What a policy's compile step gets (in the build worker, inside the build's read transaction). */
interface PolicyBuild {
  db: Database;
  /** bit index per enabled group id */
  bitOf: ReadonlyMap<number, number>;
  /** the number of enabled groups (bits past it are the policies' own list bits) */
  groups: number;
  /** words of every mask in the snapshot */
  words: number;
  /** the bits this policy's listBits() asked for, by group id */
  listBits: ReadonlyMap<number, number>;
}

export interface GroupPolicy<D extends object = object, S = unknown> {
  /** its key in the snapshot data's `policies` (stable: it crosses threads and lives in no file) */
  readonly name: string;
  readonly point: PolicyPoint;
  /** judged also with blocking off (a pause, a group's upstreams), else only while blocking is on */
  readonly always?: boolean;
  /** judged for every name (the question, `_esni.` and the CNAME chain), else for the question alone */
  readonly everyName?: boolean;
  /**
   * Block lists this policy applies to some groups only at times: group id → the adlist ids. Each such group
   * gets a bit past the groups' in those lists' masks (the judge widens a client's groups by it).
   */
  listBits?(db: Database, bitOf: ReadonlyMap<number, number>): Map<number, number[]>;
  compile(b: PolicyBuild): D;
  /** the data for a snapshot without rows (and for a thread's first one) */
  empty(words: number): D;
  /** the typed arrays' buffers of `d`, sent to the DNS threads without copying */
  buffers(d: D): ArrayBuffer[];
  /** the data made ready for queries on one thread; null: nothing to judge (the step skips the policy) */
  load(d: D, opts: ClientResolverOptions): S | null;
  judge(s: S, q: PolicyQuery, n: JudgedName): PolicyVerdict | null;
  /** forget what `s` learnt of a client address (its name changed) */
  forget?(s: S, ip: string): void;
}

/** The policies in the order they are judged at each point, and the worker that builds a snapshot with them. */
export interface PolicySet {
  readonly list: readonly GroupPolicy[];
  /** the build worker's path under src/ (it imports the same registry) */
  readonly buildWorker: string;
}
