// The query log of the long-term database (GET /api/queries?disk=true, src/api/queries/routes.ts):
// the same filters as the Query log page (its FilterBar), inside the range chosen above, paged
// with the API's cursor so that queries written meanwhile do not shift the pages.
import { useEffect, useState } from "preact/hooks";
import { get } from "../api.ts";
import { Badge, ErrorNote, Loading, Pager } from "../components.tsx";
import { dateTime, num } from "../format.ts";
import { usePoll } from "../poll.ts";
import { BLOCKED, type QueryRow } from "../why.tsx";
import { FilterBar, type Filters } from "./queries.tsx";
import { statusKind, statusWords } from "./query-status.ts";
import { DataTable } from "../table.tsx";

type Page = { queries: QueryRow[]; cursor: number; recordsTotal: number; recordsFiltered: number };
const LENGTH = 50;

export function DiskQueryLog({ from, until }: { from: number; until: number }) {
  const [filters, setFilters] = useState<Filters>({});
  const [pageNo, setPageNo] = useState(0);
  const [cursor, setCursor] = useState<number | null>(null);
  const key = `${from}|${until}|${JSON.stringify(filters)}`;
  useEffect(() => {
    setPageNo(0);
    setCursor(null);
  }, [key]);
  const { data, error } = usePoll(
    async () => {
      // a from/until in the filters narrows the range, never widens it
      const f = Math.max(from, Number(filters.from) || 0);
      const u = Math.min(until, Number(filters.until) || until);
      const q = new URLSearchParams({
        ...filters,
        disk: "true",
        from: String(f),
        until: String(u),
        length: String(LENGTH),
        start: String(pageNo * LENGTH),
      });
      if (pageNo > 0 && cursor !== null) q.set("cursor", String(cursor));
      const page = await get<Page>(`/queries?${q}`);
      if (pageNo === 0) setCursor(page.cursor);
      return page;
    },
    0,
    [key, pageNo],
  );
  const pages = data ? Math.max(1, Math.ceil(data.recordsFiltered / LENGTH)) : 1;
  return (
    <div class="stack">
      <FilterBar filters={filters} onApply={setFilters} />
      <span class="muted" data-testid="disk-query-count">
        {data ? `${num(data.recordsFiltered)} of ${num(data.recordsTotal)} queries in the database` : ""}
      </span>
      <ErrorNote error={error} />
      {!data ? (
        <Loading />
      ) : data.queries.length === 0 ? (
        <p class="empty">No stored queries match.</p>
      ) : (
        <DataTable
          class="queries disk-queries"
          head={
            <>
              <th>Time</th>
              <th>Type</th>
              <th>Domain</th>
              <th>Client</th>
              <th>Status</th>
              <th>Reply</th>
            </>
          }
        >
          {data.queries.map((r) => (
            <tr key={r.id} class={BLOCKED.has(r.status) ? "blocked" : ""} data-domain={r.domain}>
              <td class="nowrap" data-label="Time">
                {dateTime(r.time)}
              </td>
              <td data-label="Type">{r.type}</td>
              <td class="domain" data-label="Domain">
                {r.domain}
              </td>
              <td data-label="Client">{r.client.name ?? r.client.ip}</td>
              <td data-label="Status">
                <Badge kind={statusKind(r.status)} title={r.status}>
                  {statusWords(r.status)}
                </Badge>
              </td>
              <td class="nowrap" data-label="Reply">
                {r.reply.type} <small class="muted">{(r.reply.time * 1000).toFixed(1)} ms</small>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager page={pageNo} pages={pages} onPage={setPageNo} />
    </div>
  );
}
