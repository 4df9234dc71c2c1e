// AdGuard Home's query log (data/querylog.json: one JSON object per line, `T` the time, `QH` the name,
// `QT` the type, `IP` the client, `Result.IsFiltered`, `Cached`, `Upstream`, `Elapsed` in ns, `Answer`
// the reply as sent, a DNS message in base64: internal/querylog/entry.go in AdGuardHome) as stored
// queries in Pi-hole's numbering of types and statuses, with the reply's answer records as Moat's own log keeps them.
import { answerText } from "../dns/answer-text.ts";
import type { ImportedQuery } from "../querylog/import.ts";
import type { Plan } from "./plan.ts";

/** Pi-hole's query type numbers (FTL's enum query_type) */
const TYPES: Record<string, number> = {
  A: 1,
  AAAA: 2,
  ANY: 3,
  SRV: 4,
  SOA: 5,
  PTR: 6,
  TXT: 7,
  NAPTR: 8,
  MX: 9,
  DS: 10,
  RRSIG: 11,
  DNSKEY: 12,
  NS: 13,
  SVCB: 15,
  HTTPS: 16,
};
const OTHER = 14;
/** statuses: blocked by a list, forwarded, answered from the cache */
const GRAVITY = 1;
const FORWARDED = 2;
const CACHED = 3;

/** The answer records of AdGuard Home's `Answer` (a whole DNS message in base64), null when it has none or is not one. */
function answers(answer: unknown): string | null {
  if (typeof answer !== "string" || !answer) return null;
  const msg = Buffer.from(answer, "base64");
  return msg.length >= 12 ? answerText(new Uint8Array(msg.buffer, msg.byteOffset, msg.length)) : null;
}

export function queryLogRows(text: string, plan: Plan): ImportedQuery[] {
  const rows: ImportedQuery[] = [];
  let bad = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let q: Record<string, unknown>;
    try {
      q = JSON.parse(line) as Record<string, unknown>;
    } catch {
      bad++;
      continue;
    }
    const t = Date.parse(String(q.T));
    if (!Number.isFinite(t) || typeof q.QH !== "string" || typeof q.IP !== "string") {
      bad++;
      continue;
    }
    const filtered = (q.Result as { IsFiltered?: boolean } | undefined)?.IsFiltered === true;
    rows.push({
      timestamp: t / 1000,
      type: TYPES[String(q.QT)] ?? OTHER,
      status: filtered ? GRAVITY : q.Cached === true ? CACHED : FORWARDED,
      domain: q.QH.toLowerCase().replace(/\.$/, ""),
      client: q.IP,
      forward: !filtered && typeof q.Upstream === "string" && q.Upstream ? q.Upstream : null,
      replyTime: typeof q.Elapsed === "number" ? q.Elapsed / 1e9 : null,
      answers: answers(q.Answer),
    });
  }
  if (bad) plan.notCarried.push({ item: `${bad} query log lines`, why: "not a query record AdGuard Home writes" });
  rows.sort((a, b) => a.timestamp - b.timestamp);
  return rows;
}
