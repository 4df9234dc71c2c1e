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
import { fromLocalInput, num, pct, toLocalInput } from "../format.ts";
import { usePoll } from "../poll.ts";
import { Bars, PALETTE, Stat } from "./dashboard.tsx";
import { DiskQueryLog } from "./longterm-log.tsx";

type Range = { from: number; until: number };
type Slot = { timestamp: number; total: number; cached: number; blocked: number; forwarded: number };
type ClientHistory = {
  clients: Record<string, { name: string | null; total: number }>;
  history: Array<{ timestamp: number; data: Record<string, number> }>;
};
type Summary = { sum_queries: number; sum_blocked: number; percent_blocked: number; total_clients: number };
type Top = {
  domains?: Array<{ domain: string; count: number }>;
  clients?: Array<{ ip: string; name: string; count: number }>;
  total_queries: number;
  blocked_queries: number;
};
type Upstreams = { upstreams: Array<{ name: string | null; port: number; count: number }>; total_queries: number };

const PRESETS = [
  { id: "24h", label: "Last 24 hours", seconds: 86400 },
  { id: "7d", label: "Last 7 days", seconds: 7 * 86400 },
  { id: "30d", label: "Last 30 days", seconds: 30 * 86400 },
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
      aria-label="Range"
      onSubmit={(e) => {
        e.preventDefault();
        if (mode === "custom") onPick(custom);
        else pick(mode);
      }}
    >
      <fieldset class="seg">
        <legend class="sr-only">Range</legend>
        {[...PRESETS, { id: "custom", label: "Custom" }].map((p) => (
          <label key={p.id} class={mode === p.id ? "seg-item active" : "seg-item"}>
            <input
              class="sr-only"
              type="radio"
              name="range"
              value={p.id}
              checked={mode === p.id}
              onChange={() => pick(p.id)}
            />
            {p.label}
          </label>
        ))}
      </fieldset>
      {mode === "custom" && (
        <>
          <label class="filter">
            <span>From</span>
            <input
              type="datetime-local"
              name="range-from"
              value={toLocalInput(custom.from)}
              onInput={(e) => setCustom({ ...custom, from: fromLocalInput((e.target as HTMLInputElement).value) })}
            />
          </label>
          <label class="filter">
            <span>Until</span>
            <input
              type="datetime-local"
              name="range-until"
              value={toLocalInput(custom.until)}
              onInput={(e) => setCustom({ ...custom, until: fromLocalInput((e.target as HTMLInputElement).value) })}
            />
          </label>
        </>
      )}
      <button type="submit" class="btn primary">
        {mode === "custom" ? "Show" : "Refresh"}
      </button>
    </form>
  );
}

/** seconds per chart point: 10 minutes up to a day, then wider, about 300 points whatever the range */
function interval(r: Range): number {
  return Math.max(600, Math.ceil((r.until - r.from) / 300 / 600) * 600);
}

function per(seconds: number): string {
  return seconds >= 3600 ? `${seconds / 3600} h` : `${seconds / 60} minutes`;
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
      <Card title="Queries" class="span2">
        <ErrorNote error={error} />
        {h ? (
          <TimeChart
            label={`Queries per ${per(every)} over ${days || "<1"} days, permitted and blocked`}
            x={h.history.map((b) => b.timestamp)}
            series={[
              {
                label: "Permitted",
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
                label: "Blocked",
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
      <Card title="Clients over time" class="span2">
        {c ? (
          <TimeChart
            label={`Queries per client per ${per(every)}`}
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
      <Card title="Query types">
        {wait(types, () => (
          <Bars
            items={typeList.map(([t, n]) => ({ label: t, count: n }))}
            total={typeList.reduce((s, [, n]) => s + n, 0)}
          />
        ))}
      </Card>
      <Card title="Upstreams">
        {wait(up, () => (
          <Bars
            items={up!.upstreams
              .filter((u) => u.count > 0)
              .map((u) => ({ label: u.port > 0 ? `${u.name}#${u.port}` : (u.name ?? ""), count: u.count }))}
            total={up!.total_queries}
          />
        ))}
      </Card>
      <Card title="Top permitted domains">
        {wait(top, () => (
          <Bars
            items={(top!.domains ?? []).map((d) => ({ label: d.domain, count: d.count }))}
            total={top!.total_queries}
          />
        ))}
      </Card>
      <Card title="Top blocked domains">
        {wait(blocked, () => (
          <Bars
            items={(blocked!.domains ?? []).map((d) => ({ label: d.domain, count: d.count }))}
            total={blocked!.blocked_queries}
          />
        ))}
      </Card>
      <Card title="Top clients">
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
          Pick a start before the end.
        </p>
      ) : (
        <>
          <ErrorNote error={error} />
          <div class="dash">
            <div class="stats">
              <Stat testid="lt-total" kind="blue" label="Total queries" value={s ? num(s.sum_queries) : "…"} />
              <Stat testid="lt-blocked" kind="red" label="Queries blocked" value={s ? num(s.sum_blocked) : "…"} />
              <Stat testid="lt-percent" kind="amber" label="Percent blocked" value={s ? pct(s.percent_blocked) : "…"} />
              <Stat testid="lt-clients" kind="green" label="Clients" value={s ? num(s.total_clients) : "…"} />
            </div>
            <Charts key={q} r={r} q={q} />
            <Tops q={q} />
          </div>
          <Card title="Query log (long-term database)">
            <DiskQueryLog from={r.from} until={r.until} />
          </Card>
        </>
      )}
      <p class="muted">
        Queries reach the long-term database every <code>database.DBinterval</code> seconds, so the newest minute may be
        missing: "Refresh" asks again up to now.
      </p>
    </div>
  );
}
