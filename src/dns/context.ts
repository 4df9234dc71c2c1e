// The one interface every resolver step implements (like a CoreDNS plugin): look at the query, answer
// it, or hand it to the rest of the chain and perhaps inspect what comes back.
import type { ConfigStore } from "../config/index.ts";
import type { Question, Message } from "./wire.ts";
import type { Snapshot } from "../filter/snapshot.ts";

/** What the resolver and its handlers read of the configuration: the main thread's store, or a worker's mirror of it. */
export type ConfigView = Pick<ConfigStore, "current" | "subscribe">;

/** A wire answer, or null to drop the query without a reply. */
export type Answer = Uint8Array | null;
export type Pending = Answer | Promise<Answer>;

export interface QueryContext {
  query: Uint8Array;
  q: Question;
  /** client address (IPv4-mapped prefix removed) */
  client: string;
  /** DoT/DoH client ID (`<id>.pi.hole`, `/dns-query/<id>`): it picks the client entry before the address does */
  clientId: string | null;
  tcp: boolean;
  /** performance.now() at receipt */
  start: number;
  /** the filter snapshot this query is judged by (one per query, even across a reload) */
  snapshot: Snapshot;
  /** what goes into the query record */
  status: number;
  reply: number;
  upstream: string | null;
  listId: number | null;
  ede: number;
  cname: string | null;
  /** set by the forwarder: the walked upstream answer (cache and CNAME inspection use it) */
  upstreamMessage: Message | null;
  /** DNSSEC verdict for the query log (src/query/enums.ts DNSSEC_STATUS; 0: not validated) */
  dnssec: number;
  /** names of the answer's CNAME chain, when it has one */
  cnameChain: string[] | null;
  /** the client's group upstreams (Snapshot.upstreamSetOf: 1-based, 0 = dns.upstreams): the forwarder's servers and a part of the cache key */
  upstreamSet: number;
  /** a background refresh: answer, but record nothing */
  background: boolean;
}

/** Calls the rest of the chain with this query (or a copy of it: background refreshes). */
export type Next = (ctx: QueryContext) => Pending;

export interface Handler {
  readonly name: string;
  handle(ctx: QueryContext, next: Next): Pending;
}

/** Runs the handlers in order; each decides whether to call the next. The links are made once, not per query. */
export function chain(handlers: Handler[]): (ctx: QueryContext) => Pending {
  let link: Next = () => null;
  for (let i = handlers.length - 1; i >= 0; i--) {
    const h = handlers[i]!,
      rest = link;
    link = (ctx) => h.handle(ctx, rest);
  }
  return link;
}
