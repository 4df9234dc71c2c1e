// Long-term data: the statistics of pihole-FTL.db over a chosen range (Pi-hole's "Long-term data"
// pages in one): totals, queries and clients over time (/api/history/database…, ~300 points
// whatever the range, by its interval=), top domains, clients, upstreams and query types
// (/api/stats/database/…), and the stored query log below.
// Nothing polls: the database changes every database.DBinterval, so "Refresh" asks again.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { get } from "../api.ts";
import { Card, ErrorNote, Loading } from "../components.tsx";
import { TimeChart } from "../chart.tsx";
import { num, pct } from "../format.ts";
import { usePoll } from "../poll.ts";
import { Bars, PALETTE, Stat, type Top, TopDomains } from "./dashboard.tsx";
import { DiskQueryLog } from "./longterm-log.tsx";
import { TimeInput } from "./queries.tsx";
import { msg, plural, t, tx } from "../i18n.ts";

type Range = { from: number; until: number };
type Slot = { timestamp: number; total: number; cached: number; blocked: number; forwarded: number };
type ClientHistory = {
  clients: Record<string, { name: string | null; total: number }>;
  history: Array<{ timestamp: number; data: Record<string, number> }>;
};
type Summary = { sum_queries: number; sum_blocked: number; percent_blocked: number; total_clients: number };
type Upstreams = { upstreams: Array<{ name: string | null; port: number; count: number }>; total_queries: number };

const PRESETS = [
  { id: "24h", label: msg("Last 24 hours"), seconds: 86400 },
  { id: "7d", label: msg("Last 7 days"), seconds: 7 * 86400 },
  { id: "30d", label: msg("Last 30 days"), seconds: 30 * 86400 },
] as const;

/** rounded up: a query of the current second is inside the range (the API compares timestamp <= until) */
const now = () => Math.ceil(Date.now() / 1000);

function RangePicker({ onPick }: { onPick: (r: Range) => void }) {
  const [mode, setMode] = useState<string>("24h");
  const [custom, setCustom] = useState<Range>({ from: now() - 86400, until: now() });
  const pick = (id: string) => {
    setMode(id);
    const p = PRESETS.find((x) => x.id === id);
    if (p) onPick({ from: now() - p.seconds, until: now() });
  };
  return (
    <form
      class="range-picker"
      aria-label={t("Range")}
      onSubmit={(e) => {
        e.preventDefault();
        if (mode === "custom") onPick(custom);
        else pick(mode);
      }}
    >
      <fieldset class="seg">
        <legend class="sr-only">{t("Range")}</legend>
        {[...PRESETS, { id: "custom", label: msg("Custom") }].map((p) => (
          <label key={p.id} class={mode === p.id ? "seg-item active" : "seg-item"}>
            <input
              class="sr-only"
              type="radio"
              name="range"
              value={p.id}
              checked={mode === p.id}
              onChange={() => pick(p.id)}
            />
            {t(p.label)}
          </label>
        ))}
      </fieldset>
      {mode === "custom" && (
        <>
          <TimeInput
            label={t("From")}
            name="range-from"
            value={custom.from}
            onValue={(from) => setCustom({ ...custom, from: Number(from) })}
          />
          <TimeInput
            label={t("Until")}
            name="range-until"
            value={custom.until}
            onValue={(until) => setCustom({ ...custom, until: Number(until) })}
          />
        </>
      )}
      <button type="submit" class="btn primary">
        {mode === "custom" ? t("Show") : t("Refresh")}
      </button>
    </form>
  );
}

/** seconds per chart point: 10 minutes up to a day, then wider, about 300 points whatever the range */
function interval(r: Range): number {
  return Math.max(600, Math.ceil((r.until - r.from) / 300 / 600) * 600);
}

function per(seconds: number): string {
  return seconds >= 3600
    ? plural(seconds / 3600, { one: "{count} hour", other: "{count} hours" })
    : plural(seconds / 60, { one: "{count} minute", other: "{count} minutes" });
}

function Charts({ r, q }: { r: Range; q: string }) {
  const every = interval(r);
  const { data: h, error } = usePoll(() => get<{ history: Slot[] }>(`/history/database?${q}&interval=${every}`), 0, [
    q,
  ]);
  const { data: c } = usePoll(() => get<ClientHistory>(`/history/database/clients?${q}&N=8&interval=${every}`), 0, [q]);
  const days = Math.round((r.until - r.from) / 86400);
  return (
    <>
      <Card title={t("Queries")} class="span2">
        <ErrorNote error={error} />
        {h ? (
          <TimeChart
            label={
              days
                ? plural(
                    days,
                    {
                      one: "Queries per {per} over {count} day, permitted and blocked",
                      other: "Queries per {per} over {count} days, permitted and blocked",
                    },
                    { per: per(every) },
                  )
                : t("Queries per {per} over less than a day, permitted and blocked", { per: per(every) })
            }
            x={h.history.map((b) => b.timestamp)}
            series={[
              {
                label: t("Permitted"),
                color: "var(--ok-chart)",
                values: h.history.map((b) => b.total),
                bars: true,
                // the bars stack blocked over all queries: the permitted figure is the difference
                legend: (i) =>
                  num(
                    i === null
                      ? h.history.reduce((a, b) => a + b.total - b.blocked, 0)
                      : (h.history[i]?.total ?? 0) - (h.history[i]?.blocked ?? 0),
                  ),
              },
              {
                label: t("Blocked"),
                color: "var(--bad-chart)",
                values: h.history.map((b) => b.blocked),
                bars: true,
              },
            ]}
          />
        ) : (
          <Loading />
        )}
      </Card>
      <Card title={t("Clients over time")} class="span2">
        {c ? (
          <TimeChart
            label={t("Queries per client per {per}", { per: per(every) })}
            x={c.history.map((b) => b.timestamp)}
            series={Object.keys(c.clients).map((ip, k) => ({
              label: c.clients[ip]!.name ?? ip,
              color: PALETTE[k % PALETTE.length]!,
              values: c.history.map((b) => b.data[ip] ?? 0),
            }))}
          />
        ) : (
          <Loading />
        )}
      </Card>
    </>
  );
}

function Tops({ q }: { q: string }) {
  const load = <T,>(path: string) => usePoll(() => get<T>(`${path}${path.includes("?") ? "&" : "?"}${q}`), 0, [q]);
  const { data: types } = load<{ types: Record<string, number> }>("/stats/database/query_types");
  const { data: up } = load<Upstreams>("/stats/database/upstreams");
  const { data: top } = load<Top>("/stats/database/top_domains?count=10");
  const { data: blocked } = load<Top>("/stats/database/top_domains?blocked=true&count=10");
  const { data: clients } = load<Top>("/stats/database/top_clients?count=10");
  const typeList = Object.entries(types?.types ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const wait = (ok: unknown, el: () => JSX.Element) => (ok ? el() : <Loading />);
  return (
    <>
      <Card title={t("Query types")}>
        {wait(types, () => (
          <Bars
            items={typeList.map(([type, n]) => ({ label: type, count: n }))}
            total={typeList.reduce((s, [, n]) => s + n, 0)}
          />
        ))}
      </Card>
      <Card title={t("Upstreams")}>
        {wait(up, () => (
          <Bars
            items={up!.upstreams
              .filter((u) => u.count > 0)
              .map((u) => ({ label: u.port > 0 ? `${u.name}#${u.port}` : (u.name ?? ""), count: u.count }))}
            total={up!.total_queries}
          />
        ))}
      </Card>
      <Card title={t("Top permitted domains")}>
        <TopDomains top={top} blocked={false} link={false} />
      </Card>
      <Card title={t("Top blocked domains")}>
        <TopDomains top={blocked} blocked={true} link={false} />
      </Card>
      <Card title={t("Top clients")}>
        {wait(clients, () => (
          <Bars
            items={(clients!.clients ?? []).map((c) => ({
              label: c.name ? `${c.name} (${c.ip})` : c.ip,
              count: c.count,
            }))}
            total={clients!.total_queries}
          />
        ))}
      </Card>
    </>
  );
}

export function LongTerm() {
  const [r, setR] = useState<Range>(() => ({ from: now() - 86400, until: now() }));
  const q = `from=${r.from}&until=${r.until}`;
  const { data: s, error } = usePoll(() => get<Summary>(`/stats/database/summary?${q}`), 0, [q]);
  const valid = r.from > 0 && r.until > r.from;
  return (
    <div class="stack">
      <RangePicker onPick={setR} />
      {!valid ? (
        <p class="note error" role="alert">
          {t("Pick a start before the end.")}
        </p>
      ) : (
        <>
          <ErrorNote error={error} />
          <div class="dash">
            <div class="stats">
              <Stat testid="lt-total" kind="blue" label={t("Total queries")} value={s ? num(s.sum_queries) : "…"} />
              <Stat testid="lt-blocked" kind="red" label={t("Queries blocked")} value={s ? num(s.sum_blocked) : "…"} />
              <Stat
                testid="lt-percent"
                kind="amber"
                label={t("Percent blocked")}
                value={s ? pct(s.percent_blocked) : "…"}
              />
              <Stat testid="lt-clients" kind="green" label={t("Clients")} value={s ? num(s.total_clients) : "…"} />
            </div>
            <Charts key={q} r={r} q={q} />
            <Tops q={q} />
          </div>
          <Card title={t("Query log (long-term database)")}>
            <DiskQueryLog from={r.from} until={r.until} />
          </Card>
        </>
      )}
      <p class="muted">
        {tx(
          "Queries reach the long-term database every {setting} seconds, so the newest minute may be missing: “Refresh” asks again up to now.",
          { setting: <code data-raw>database.DBinterval</code> },
        )}
      </p>
    </div>
  );
}
