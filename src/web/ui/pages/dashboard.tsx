// The dashboard: totals, 24 h of queries (permitted and blocked, 10-minute bins), clients over
// time, query types, upstreams, top domains and clients. Totals refresh every 10 s, the rest
// every 30–60 s, and nothing while the tab is hidden.
import { get } from "../api.ts";
import { Card, ErrorNote, Loading } from "../components.tsx";
import { TimeChart } from "../chart.tsx";
import { ago, num, pct } from "../format.ts";
import { usePoll } from "../poll.ts";
import { linkProps } from "../router.ts";

type Summary = {
  queries: {
    total: number;
    blocked: number;
    percent_blocked: number;
    unique_domains: number;
    forwarded: number;
    cached: number;
    types: Record<string, number>;
  };
  clients: { active: number; total: number };
  gravity: { domains_being_blocked: number; last_update: number };
};
type History = {
  history: Array<{ timestamp: number; total: number; cached: number; blocked: number; forwarded: number }>;
};
type ClientHistory = {
  clients: Record<string, { name: string | null; total: number }>;
  history: Array<{ timestamp: number; data: Record<string, number> }>;
};
type Upstreams = {
  upstreams: Array<{ ip: string; name: string; port: number; count: number; statistics: { response: number } }>;
  total_queries: number;
};
type Top = {
  domains?: Array<{ domain: string; count: number }>;
  clients?: Array<{ ip: string; name: string; count: number }>;
  total_queries: number;
  blocked_queries: number;
};

export const PALETTE = [
  "#3b82f6",
  "#f59e0b",
  "#10b981",
  "#8b5cf6",
  "#ef4444",
  "#06b6d4",
  "#84cc16",
  "#ec4899",
  "#64748b",
  "#a16207",
];

export function Stat({
  label,
  value,
  sub,
  kind,
  testid,
}: {
  label: string;
  value: string;
  sub?: string;
  kind: string;
  testid: string;
}) {
  return (
    <div class={`stat ${kind}`} data-testid={testid}>
      <span class="stat-label">{label}</span>
      <span class="stat-value">{value}</span>
      {sub && <span class="stat-sub">{sub}</span>}
    </div>
  );
}

export function Bars({
  items,
  total,
}: {
  items: Array<{ label: string; count: number; href?: string }>;
  total: number;
}) {
  if (!items.length) return <p class="muted">Nothing yet.</p>;
  return (
    <ul class="bars">
      {items.map((it) => (
        <li key={it.label}>
          <span class="bar-label">{it.href ? <a {...linkProps(it.href)}>{it.label}</a> : it.label}</span>
          <span class="bar-num">{num(it.count)}</span>
          <span class="bar" style={{ width: `${total ? Math.max(1, (it.count / total) * 100) : 0}%` }} />
        </li>
      ))}
    </ul>
  );
}

function QueriesChart() {
  const { data } = usePoll(() => get<History>("/history"), 60000);
  if (!data) return <Loading />;
  const h = data.history;
  const x = h.map((b) => b.timestamp);
  const permitted = h.map((b) => b.total - b.blocked);
  return (
    <TimeChart
      label="Queries over the last 24 hours, permitted and blocked"
      x={x}
      series={[
        {
          label: "Permitted",
          color: "var(--ok-chart)",
          values: h.map((b) => b.total),
          bars: true,
          legend: (i) => num(i == null ? permitted.reduce((a, b) => a + b, 0) : permitted[i]),
        },
        {
          label: "Blocked",
          color: "var(--bad-chart)",
          values: h.map((b) => b.blocked),
          bars: true,
          legend: (i) => num(i == null ? h.reduce((a, b) => a + b.blocked, 0) : h[i]?.blocked),
        },
      ]}
    />
  );
}

function ClientsChart() {
  const { data } = usePoll(() => get<ClientHistory>("/history/clients?N=8"), 60000);
  if (!data) return <Loading />;
  const ips = Object.keys(data.clients);
  const x = data.history.map((b) => b.timestamp);
  const series = ips.map((ip, k) => ({
    label: data.clients[ip]!.name ?? ip,
    color: PALETTE[k % PALETTE.length]!,
    values: data.history.map((b) => b.data[ip] ?? 0),
  }));
  if (data.history.some((b) => b.data.others))
    series.push({ label: "others", color: "#94a3b8", values: data.history.map((b) => b.data.others ?? 0) });
  return <TimeChart label="Queries per client over the last 24 hours" x={x} series={series} />;
}

export function Dashboard() {
  const { data: s, error } = usePoll(() => get<Summary>("/stats/summary"), 10000);
  const { data: up } = usePoll(() => get<Upstreams>("/stats/upstreams"), 30000);
  const { data: top } = usePoll(() => get<Top>("/stats/top_domains?count=10"), 30000);
  const { data: topBlocked } = usePoll(() => get<Top>("/stats/top_domains?blocked=true&count=10"), 30000);
  const { data: clients } = usePoll(() => get<Top>("/stats/top_clients?count=10"), 30000);
  if (!s) return error ? <ErrorNote error={error} /> : <Loading />;
  const q = s.queries;
  const types = Object.entries(q.types)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return (
    <div class="dash">
      <div class="stats">
        <Stat
          testid="stat-total"
          kind="blue"
          label="Total queries"
          value={num(q.total)}
          sub={`${num(s.clients.active)} active clients`}
        />
        <Stat
          testid="stat-blocked"
          kind="red"
          label="Queries blocked"
          value={num(q.blocked)}
          sub={`of ${num(q.total)} queries`}
        />
        <Stat
          testid="stat-percent"
          kind="amber"
          label="Percent blocked"
          value={pct(q.percent_blocked)}
          sub={`${num(q.unique_domains)} distinct domains`}
        />
        <Stat
          testid="stat-gravity"
          kind="green"
          label="Domains on lists"
          value={num(s.gravity.domains_being_blocked)}
          sub={`updated ${ago(s.gravity.last_update)}`}
        />
      </div>
      <Card title="Queries, last 24 hours" class="span2">
        <QueriesChart />
      </Card>
      <Card title="Clients over time" class="span2">
        <ClientsChart />
      </Card>
      <Card title="Query types">
        <Bars items={types.map(([t, n]) => ({ label: t, count: n, href: `/queries?type=${t}` }))} total={q.total} />
      </Card>
      <Card title="Upstreams">
        {up ? (
          <Bars
            items={up.upstreams
              .filter((u) => u.count > 0)
              .map((u) => ({ label: u.port > 0 ? `${u.name}#${u.port}` : u.name, count: u.count }))}
            total={up.total_queries}
          />
        ) : (
          <Loading />
        )}
      </Card>
      <Card title="Top permitted domains">
        {top ? (
          <Bars
            items={(top.domains ?? []).map((d) => ({
              label: d.domain,
              count: d.count,
              href: `/queries?domain=${encodeURIComponent(d.domain)}`,
            }))}
            total={top.total_queries}
          />
        ) : (
          <Loading />
        )}
      </Card>
      <Card title="Top blocked domains">
        {topBlocked ? (
          <Bars
            items={(topBlocked.domains ?? []).map((d) => ({
              label: d.domain,
              count: d.count,
              href: `/queries?domain=${encodeURIComponent(d.domain)}&upstream=blocklist`,
            }))}
            total={topBlocked.blocked_queries}
          />
        ) : (
          <Loading />
        )}
      </Card>
      <Card title="Top clients">
        {clients ? (
          <Bars
            items={(clients.clients ?? []).map((c) => ({
              label: c.name ? `${c.name} (${c.ip})` : c.ip,
              count: c.count,
              href: `/queries?client_ip=${encodeURIComponent(c.ip)}`,
            }))}
            total={clients.total_queries}
          />
        ) : (
          <Loading />
        )}
      </Card>
    </div>
  );
}
