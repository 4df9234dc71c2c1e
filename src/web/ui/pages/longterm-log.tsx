// The query log of the long-term database (GET /api/queries?disk=true, src/api/queries/routes.ts):
// the same filters as the Query log page (its FilterBar), inside the range chosen above, paged
// with the API's cursor so that queries written meanwhile do not shift the pages.
import { useEffect, useState } from "preact/hooks";
import { get } from "../api.ts";
import { ErrorNote, Loading, Pager } from "../components.tsx";
import { num } from "../format.ts";
import { usePoll } from "../poll.ts";
import type { QueryRow } from "../why.tsx";
import { FilterBar, type Filters } from "./queries.tsx";
import { QueryTable } from "./query-table.tsx";
import { plural, t } from "../i18n.ts";

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
        {data
          ? plural(
              data.recordsTotal,
              { one: "{shown} of {count} query in the database", other: "{shown} of {count} queries in the database" },
              { shown: num(data.recordsFiltered) },
            )
          : ""}
      </span>
      <ErrorNote error={error} />
      {!data ? (
        <Loading />
      ) : data.queries.length === 0 ? (
        <p class="empty">{t("No stored queries match.")}</p>
      ) : (
        <QueryTable rows={data.queries} class="queries disk-queries" />
      )}
      <Pager page={pageNo} pages={pages} onPage={setPageNo} />
    </div>
  );
}
