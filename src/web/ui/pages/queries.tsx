// The query log: newest first, filtered by the API (wildcards with *), paged with its cursor, and
// a live tail that polls for the newest page. Each row can allow or deny its domain in one step and
// explain why it was blocked.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, enc, get } from "../api.ts";
import { Badge, Button, ErrorNote, Loading, Pager, toast, Toggle } from "../components.tsx";
import { dateTime, fromLocalInput, num, toLocalInput } from "../format.ts";
import { usePoll } from "../poll.ts";
import { navigate, useRoute } from "../router.ts";
import { BLOCKED, Why, type QueryRow } from "../why.tsx";
import { PauseButton, usePauses } from "../pause.tsx";
import { dnssecKind, dnssecWords, statusKind, statusWords, upstreamWords } from "./query-status.ts";
import { ActionsHeader, DataTable } from "../table.tsx";

type Page = { queries: QueryRow[]; cursor: number; recordsTotal: number; recordsFiltered: number };
type Suggestions = { suggestions: Record<string, string[]> };
const FILTERS = ["domain", "client_ip", "status", "type", "upstream", "dnssec", "from", "until"] as const;
/** The DNSSEC verdicts a query can carry (dns.dnssec); UNKNOWN (not validated) is left out of the filter. */
const DNSSEC_CHOICES = ["SECURE", "INSECURE", "BOGUS", "ABANDONED"];
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;
const LENGTH = 50;

/**
 * What a person filters by, as Pi-hole's query log offers it, each mapped to the API's filters: the
 * groups are the `upstream` keywords (blocklist, permitted, cache), the single reasons a `status`.
 * The statuses the resolver uses internally (IN_PROGRESS, DBBUSY, RETRIED_DNSSEC…) are not offered.
 */
const STATUS_CHOICES: Array<{ key: string; label: string; upstream?: string; status?: string }> = [
  { key: "blocked", label: "Blocked (any reason)", upstream: "blocklist" },
  { key: "gravity", label: "Blocked by a list", status: "GRAVITY" },
  { key: "denylist", label: "Blocked by a deny entry", status: "DENYLIST" },
  { key: "regex", label: "Blocked by a regex", status: "REGEX" },
  { key: "allowed", label: "Allowed (any)", upstream: "permitted" },
  { key: "forwarded", label: "Forwarded", status: "FORWARDED" },
  { key: "cached", label: "Answered from cache", upstream: "cache" },
  { key: "retried", label: "Retried", status: "RETRIED" },
  { key: "special", label: "Answered by Moat (special name)", status: "SPECIAL_DOMAIN" },
];

/** the choice the filters in force match ("" when none) */
function statusChoice(f: Filters): string {
  return (
    STATUS_CHOICES.find((c) => (c.status ? f.status === c.status : !f.status && f.upstream === c.upstream))?.key ?? ""
  );
}

/** the filters with a status choice applied (the keywords share `upstream` with the real upstreams) */
function withStatus(f: Filters, key: string): Filters {
  const c = STATUS_CHOICES.find((x) => x.key === key);
  const keyword = STATUS_CHOICES.some((x) => x.upstream && x.upstream === f.upstream);
  const next: Filters = { ...f, status: c?.status ?? "" };
  if (c?.upstream) next.upstream = c.upstream;
  else if (keyword) next.upstream = "";
  return next;
}

export function FilterBar({ filters, onApply }: { filters: Filters; onApply: (f: Filters) => void }) {
  const [f, setF] = useState<Filters>(filters);
  const { data: sug } = usePoll(() => get<Suggestions>("/queries/suggestions"), 0);
  useEffect(() => setF(filters), [JSON.stringify(filters)]);
  const input = (key: keyof Filters, label: string, placeholder: string, list?: string[]) => (
    <label class="filter">
      <span>{label}</span>
      <input
        name={key}
        value={f[key] ?? ""}
        placeholder={placeholder}
        list={list ? `sug-${key}` : undefined}
        onInput={(e) => setF({ ...f, [key]: (e.target as HTMLInputElement).value })}
      />
      {list && (
        <datalist id={`sug-${key}`}>
          {list.map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
      )}
    </label>
  );
  const s = sug?.suggestions ?? {};
  const active = Object.values(filters).filter(Boolean).length;
  // On a phone the eight fields would push the log below the fold: folded until asked for or in use.
  const [open, setOpen] = useState(active > 0);
  return (
    <>
      <button
        type="button"
        class="btn ghost filters-toggle"
        aria-expanded={open}
        aria-controls="query-filters"
        onClick={() => setOpen(!open)}
      >
        {open ? "Hide filters" : active ? `Filters (${active} in use)` : "Filters"}
      </button>
      <form
        id="query-filters"
        class={open ? "filters" : "filters folded"}
        onSubmit={(e) => {
          e.preventDefault();
          onApply(f);
        }}
      >
        {input("domain", "Domain", "*.example.com", s.domain)}
        {input("client_ip", "Client", "192.168.1.*", s.client_ip)}
        <label class="filter">
          <span>Status</span>
          <select
            name="status"
            value={statusChoice(f)}
            onChange={(e) => setF(withStatus(f, (e.target as HTMLSelectElement).value))}
          >
            <option value="">any</option>
            {STATUS_CHOICES.map((c) => (
              <option key={c.key} value={c.key}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          <span>Type</span>
          <select
            name="type"
            value={f.type ?? ""}
            onChange={(e) => setF({ ...f, type: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {(s.type ?? []).map((v) => (
              <option key={v} value={v}>
                {dnssecWords(v)}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          <span>DNSSEC</span>
          <select
            name="dnssec"
            value={f.dnssec ?? ""}
            onChange={(e) => setF({ ...f, dnssec: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {DNSSEC_CHOICES.map((v) => (
              <option key={v} value={v}>
                {dnssecWords(v)}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          <span>Upstream</span>
          <select
            name="upstream"
            value={f.upstream ?? ""}
            onChange={(e) => setF({ ...f, upstream: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {(s.upstream ?? []).map((v) => (
              <option key={v} value={v}>
                {dnssecWords(v)}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          <span>From</span>
          <input
            type="datetime-local"
            name="from"
            value={toLocalInput(f.from)}
            onInput={(e) =>
              setF({
                ...f,
                from: String(fromLocalInput((e.target as HTMLInputElement).value) || ""),
              })
            }
          />
        </label>
        <label class="filter">
          <span>Until</span>
          <input
            type="datetime-local"
            name="until"
            value={toLocalInput(f.until)}
            onInput={(e) =>
              setF({
                ...f,
                until: String(fromLocalInput((e.target as HTMLInputElement).value) || ""),
              })
            }
          />
        </label>
        <div class="filter-actions">
          <button type="submit" class="btn primary">
            Filter
          </button>
          <button type="button" class="btn ghost" onClick={() => onApply({})}>
            Clear
          </button>
        </div>
      </form>
    </>
  );
}

function RowActions({
  row,
  onWhy,
  pauses,
}: {
  row: QueryRow;
  onWhy: () => void;
  pauses: ReturnType<typeof usePauses>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const list = async (type: "allow" | "deny") => {
    setBusy(type);
    try {
      await api("POST", `/domains/${type}/exact`, { domain: row.domain, comment: "added from the query log" }).catch(
        (e: unknown) => {
          if (!(e instanceof ApiError && /UNIQUE|already/i.test(e.message + JSON.stringify(e.hint)))) throw e;
        },
      );
      // one step: an opposite exact entry would win or conflict, so it goes; asked first, so a
      // domain on neither list sends no DELETE that can only fail
      // (the list, not the item: a GET of an item that is not there is a 404 too)
      const other = `/domains/${type === "deny" ? "allow" : "deny"}/exact`;
      const held = await get<{ domains: Array<{ domain: string }> }>(other);
      if (held.domains.some((d) => d.domain === row.domain)) await api("DELETE", `${other}/${enc(row.domain)}`);
      toast(`${row.domain} ${type === "deny" ? "denied" : "allowed"}`);
    } catch (e) {
      toast(e instanceof ApiError ? e.text : String(e), "error");
    } finally {
      setBusy(null);
    }
  };
  const blocked = BLOCKED.has(row.status);
  return (
    <div class="row-actions">
      {blocked ? (
        <Button busy={busy === "allow"} onClick={() => list("allow")} title={`Allow ${row.domain}`}>
          Allow
        </Button>
      ) : (
        <Button busy={busy === "deny"} onClick={() => list("deny")} title={`Deny ${row.domain}`}>
          Deny
        </Button>
      )}
      <Button kind="ghost" onClick={onWhy} title="Why was this blocked or allowed?">
        Why?
      </Button>
      <PauseButton
        class="q-pause"
        client={row.client.ip}
        paused={pauses.paused.has(row.client.ip)}
        onDone={pauses.reload}
      />
    </div>
  );
}

export function QueryLog() {
  const route = useRoute();
  const params = new URLSearchParams(route.split("?")[1] ?? "");
  const filters: Filters = {};
  for (const k of FILTERS) if (params.get(k)) filters[k] = params.get(k)!;
  const [pageNo, setPageNo] = useState(0);
  const [cursor, setCursor] = useState<number | null>(null);
  const [live, setLive] = useState(true);
  const [why, setWhy] = useState<QueryRow | null>(null);
  const pauses = usePauses();
  const key = JSON.stringify(filters);
  useEffect(() => {
    setPageNo(0);
    setCursor(null);
  }, [key]);

  const tail = live && pageNo === 0;
  const { data, stale, error } = usePoll(
    async () => {
      const q = new URLSearchParams({ ...filters, length: String(LENGTH), start: String(pageNo * LENGTH) });
      if (!tail && cursor !== null) q.set("cursor", String(cursor));
      const page = await get<Page>(`/queries?${q}`);
      if (pageNo === 0) setCursor(page.cursor);
      return page;
    },
    tail ? 2000 : 0,
    [key, pageNo, tail],
  );

  const apply = (f: Filters) => {
    const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v) as Array<[string, string]>).toString();
    navigate(`/queries${q ? `?${q}` : ""}`);
  };
  const pages = data ? Math.max(1, Math.ceil(data.recordsFiltered / LENGTH)) : 1;
  return (
    <div class="stack">
      <FilterBar filters={filters} onApply={apply} />
      <div class="toolbar">
        <span class="muted" data-testid="query-count">
          {data && !stale ? `${num(data.recordsFiltered)} of ${num(data.recordsTotal)} queries` : ""}
        </span>
        <span class="row">
          <Toggle id="live" checked={live} onChange={setLive} label="Live" /> <label for="live">Live</label>
        </span>
      </div>
      <ErrorNote error={error} />
      {!data || stale ? (
        <Loading />
      ) : data.queries.length === 0 ? (
        <p class="empty">No queries match.</p>
      ) : (
        <DataTable
          class="queries"
          head={
            <>
              <th>Time</th>
              <th>Type</th>
              <th>Domain</th>
              <th>Client</th>
              <th>Status</th>
              <th>Reply</th>
              <ActionsHeader />
            </>
          }
        >
          {data.queries.map((r) => (
            <tr key={r.id} class={BLOCKED.has(r.status) ? "blocked" : ""} data-domain={r.domain}>
              <td class="nowrap" data-label="Time">
                {dateTime(r.time)}
              </td>
              <td class="q-type" data-label="Type">
                {r.type}
              </td>
              <td class="domain" data-label="Domain">
                {r.domain}
                {r.cname && <small class="muted"> → {r.cname}</small>}
              </td>
              <td data-label="Client">{r.client.name ?? r.client.ip}</td>
              <td data-label="Status">
                <Badge kind={statusKind(r.status)} title={r.status}>
                  {statusWords(r.status)}
                </Badge>
                {r.upstream && !BLOCKED.has(r.status) && r.status !== "CACHE" && (
                  <small class="muted block">{upstreamWords(r.upstream)}</small>
                )}
              </td>
              <td class="nowrap q-reply" data-label="Reply">
                {r.reply.type} <small class="muted">{(r.reply.time * 1000).toFixed(1)} ms</small>
                {r.dnssec && r.dnssec !== "UNKNOWN" && (
                  <Badge kind={dnssecKind(r.dnssec)} title={`DNSSEC: ${r.dnssec}`}>
                    {dnssecWords(r.dnssec)}
                  </Badge>
                )}
              </td>
              <td class="q-actions">
                <RowActions row={r} onWhy={() => setWhy(r)} pauses={pauses} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager page={pageNo} pages={pages} onPage={setPageNo} />
      {why && <Why row={why} onClose={() => setWhy(null)} />}
    </div>
  );
}
