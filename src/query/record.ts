// One answered query, as the DNS engine hands it to the statistics (the columns of Pi-hole's `queries` table, src/db/query-schema.ts).
export interface QueryRecord {
  /** unix time, seconds with fraction */
  time: number;
  /** database query type (see dbQueryType) */
  type: number;
  /** lowercase, as asked (punycode) */
  domain: string;
  /** client IP address */
  client: string;
  /** index into QUERY_STATUS */
  status: number;
  /** index into REPLY_TYPE */
  reply: number;
  /** milliseconds from receipt to reply */
  replyTime: number;
  /** "ip#port" of the upstream that answered, or null */
  upstream: string | null;
  /** index into DNSSEC_STATUS */
  dnssec: number;
  /** id of the domainlist/adlist entry that decided, or null */
  listId: number | null;
  /** EDE info code, or -1 */
  ede: number;
  /** CNAME target that caused a *_CNAME block, or null */
  cname: string | null;
  /** the reply's answer records as short text ("CNAME b.example, A 192.0.2.1", src/dns/answer-text.ts), or null */
  answers: string | null;
}

/** A record and the id it has in every database (the query log's and the long-term one). */
export interface StoredRecord {
  id: number;
  r: QueryRecord;
}

/** Where the DNS engine hands records. Must never block or throw: it is called on the hot path. */
export interface QuerySink {
  /** `r` is the caller's again once this returns (the engine fills one object for every query): copy what is kept. */
  record(r: QueryRecord): void;
}
