// The query log: newest first, filtered by the API (wildcards with *), paged with its cursor, and
// a live tail that polls for the newest page. Each row can allow or deny its domain in one step and
// explain why it was blocked.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, enc, get } from "../api.ts";
import { Button, confirmAction, ErrorNote, Loading, Pager, toast, Toggle } from "../components.tsx";
import { fromLocalInput, num, toLocalInput } from "../format.ts";
import { Options } from "../fields.tsx";
import { usePoll } from "../poll.ts";
import { navigate, useRoute } from "../router.ts";
import { BLOCKED, Why, type QueryRow } from "../why.tsx";
import { PauseButton, usePauses } from "../pause.tsx";
import { dnssecWords } from "./query-status.ts";
import { QueryTable } from "./query-table.tsx";
import { clientRule, ruleCanName, withClientRule } from "./client-rule.ts";
import { msg, plural, t } from "../i18n.ts";

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
  { key: "blocked", label: msg("Blocked (any reason)"), upstream: "blocklist" },
  { key: "gravity", label: msg("Blocked by a list"), status: "GRAVITY" },
  { key: "denylist", label: msg("Blocked by a deny entry"), status: "DENYLIST" },
  { key: "regex", label: msg("Blocked by a regex"), status: "REGEX" },
  { key: "allowed", label: msg("Allowed (any)"), upstream: "permitted" },
  { key: "forwarded", label: msg("Forwarded"), status: "FORWARDED" },
  { key: "cached", label: msg("Answered from cache"), upstream: "cache" },
  { key: "retried", label: msg("Retried"), status: "RETRIED" },
  { key: "special", label: msg("Answered by Moat (special name)"), status: "SPECIAL_DOMAIN" },
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

/** a date and time field of a filter, as unix seconds ("" when empty); the long-term page's range too */
export function TimeInput({
  label,
  name,
  value,
  onValue,
}: {
  label: string;
  name: string;
  value: string | number | undefined;
  onValue: (unix: string) => void;
}) {
  return (
    <label class="filter">
      <span>{label}</span>
      <input
        type="datetime-local"
        name={name}
        value={toLocalInput(value)}
        onInput={(e) => onValue(String(fromLocalInput((e.target as HTMLInputElement).value) || ""))}
      />
    </label>
  );
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
  // a filter chosen from a list: any, or one of `values` (each read as `words` says)
  const select = (key: keyof Filters, label: string, values: string[], words: (v: string) => string) => (
    <label class="filter">
      <span>{label}</span>
      <select
        name={key}
        value={f[key] ?? ""}
        onChange={(e) => setF({ ...f, [key]: (e.target as HTMLSelectElement).value })}
      >
        <option value="">{t("any")}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {words(v)}
          </option>
        ))}
      </select>
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
        {open ? t("Hide filters") : active ? t("Filters ({count} in use)", { count: active }) : t("Filters")}
      </button>
      <form
        id="query-filters"
        class={open ? "filters" : "filters folded"}
        onSubmit={(e) => {
          e.preventDefault();
          onApply(f);
        }}
      >
        {input("domain", t("Domain"), "*.example.com", s.domain)}
        {input("client_ip", t("Client"), "192.168.1.*", s.client_ip)}
        <label class="filter">
          <span>{t("Status")}</span>
          <select
            name="status"
            value={statusChoice(f)}
            onChange={(e) => setF(withStatus(f, (e.target as HTMLSelectElement).value))}
          >
            <option value="">{t("any")}</option>
            <Options choices={STATUS_CHOICES.map((c) => [c.key, c.label] as const)} />
          </select>
        </label>
        {select("type", t("Type"), s.type ?? [], (v) => v)}
        {select("dnssec", t("DNSSEC"), DNSSEC_CHOICES, dnssecWords)}
        {select("upstream", t("Upstream"), s.upstream ?? [], (v) => v)}
        <TimeInput label={t("From")} name="from" value={f.from} onValue={(from) => setF({ ...f, from })} />
        <TimeInput label={t("Until")} name="until" value={f.until} onValue={(until) => setF({ ...f, until })} />
        <div class="filter-actions">
          <button type="submit" class="btn primary">
            {t("Filter")}
          </button>
          <button type="button" class="btn ghost" onClick={() => onApply({})}>
            {t("Clear")}
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
      await api("POST", `/domains/${type}/exact`, { domain: row.domain, comment: t("added from the query log") }).catch(
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
      toast(
        type === "deny" ? t("{domain} denied", { domain: row.domain }) : t("{domain} allowed", { domain: row.domain }),
      );
    } catch (e) {
      toast(e instanceof ApiError ? e.text : String(e), "error");
    } finally {
      setBusy(null);
    }
  };
  const blocked = BLOCKED.has(row.status);
  const who = row.client.name ?? row.client.ip;
  // the name for this client alone, as a $client custom rule (client-rule.ts says why not a group)
  const forClient = async () => {
    const ask = blocked
      ? t("Unblock {domain} for {client} only? This rule goes into the custom rules: {rule}", {
          domain: row.domain,
          client: who,
          rule: clientRule(row.domain, row.client.ip, true),
        })
      : t("Block {domain} for {client} only? This rule goes into the custom rules: {rule}", {
          domain: row.domain,
          client: who,
          rule: clientRule(row.domain, row.client.ip),
        });
    if (!(await confirmAction(ask, blocked ? t("Unblock") : t("Block")))) return;
    setBusy("client");
    try {
      const now = await get<{ rules: { text: string } }>("/rules/custom");
      const text = withClientRule(now.rules.text, row.domain, row.client.ip, !blocked);
      await api("PUT", "/rules/custom", { text });
      toast(
        blocked
          ? t("{domain} unblocked for {client}", { domain: row.domain, client: who })
          : t("{domain} blocked for {client}", { domain: row.domain, client: who }),
      );
    } catch (e) {
      toast(e instanceof ApiError ? e.text : String(e), "error");
    } finally {
      setBusy(null);
    }
  };
  return (
    <div class="row-actions">
      {blocked ? (
        <Button
          busy={busy === "allow"}
          onClick={() => list("allow")}
          title={t("Allow {domain}", { domain: row.domain })}
        >
          {t("Allow")}
        </Button>
      ) : (
        <Button busy={busy === "deny"} onClick={() => list("deny")} title={t("Deny {domain}", { domain: row.domain })}>
          {t("Deny")}
        </Button>
      )}
      {ruleCanName(row.domain) && (
        <Button
          kind="ghost"
          class="q-client-rule"
          busy={busy === "client"}
          onClick={forClient}
          title={
            blocked
              ? t("Unblock {domain} for {client} only", { domain: row.domain, client: who })
              : t("Block {domain} for {client} only", { domain: row.domain, client: who })
          }
        >
          {blocked ? t("Unblock for this client") : t("Block for this client")}
        </Button>
      )}
      <Button kind="ghost" onClick={onWhy} title={t("Why was this blocked or allowed?")}>
        {t("Why?")}
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
          {data && !stale
            ? plural(
                data.recordsTotal,
                { one: "{shown} of {count} query", other: "{shown} of {count} queries" },
                { shown: num(data.recordsFiltered) },
              )
            : ""}
        </span>
        <span class="row">
          <Toggle id="live" checked={live} onChange={setLive} label={t("Live")} /> <label for="live">{t("Live")}</label>
        </span>
      </div>
      <ErrorNote error={error} />
      {!data || stale ? (
        <Loading />
      ) : data.queries.length === 0 ? (
        <p class="empty">{t("No queries match.")}</p>
      ) : (
        <QueryTable
          rows={data.queries}
          class="queries"
          actions={(r) => <RowActions row={r} onWhy={() => setWhy(r)} pauses={pauses} />}
        />
      )}
      <Pager page={pageNo} pages={pages} onPage={setPageNo} />
      {why && <Why row={why} onClose={() => setWhy(null)} />}
    </div>
  );
}
