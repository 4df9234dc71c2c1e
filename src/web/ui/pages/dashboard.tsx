// The dashboard: totals, 24 h of queries (permitted and blocked, 10-minute bins), clients over
// time, query types, upstreams, top domains and clients. Totals refresh every 10 s, the rest
// every 30–60 s, and nothing while the tab is hidden.
import { get } from "../api.ts";
import { Card, ErrorNote, Loading } from "../components.tsx";
import { TimeChart } from "../chart.tsx";
import { ago, num, pct } from "../format.ts";
import { usePoll } from "../poll.ts";
import { linkProps } from "../router.ts";
import { plural, t } from "../i18n.ts";

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
export type Top = {
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
  if (!items.length) return <p class="muted">{t("Nothing yet.")}</p>;
  return (
    <ul class="bars">
      {items.map((it) => (
        <li key={it.label}>
          <span class="bar-label" data-raw>
            {it.href ? <a {...linkProps(it.href)}>{it.label}</a> : it.label}
          </span>
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
      label={t("Queries over the last 24 hours, permitted and blocked")}
      x={x}
      series={[
        {
          label: t("Permitted"),
          color: "var(--ok-chart)",
          values: h.map((b) => b.total),
          bars: true,
          legend: (i) => num(i == null ? permitted.reduce((a, b) => a + b, 0) : permitted[i]),
        },
        {
          label: t("Blocked"),
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
    series.push({ label: t("others"), color: "#94a3b8", values: data.history.map((b) => b.data.others ?? 0) });
  return <TimeChart label={t("Queries per client over the last 24 hours")} x={x} series={series} />;
}

/**
 * A top-domains card's bars; with `link`, each a link to its queries in the query log (the blocked ones
 * only, for the blocked card).
 */
export function TopDomains({ top, blocked, link }: { top: Top | undefined; blocked: boolean; link: boolean }) {
  if (!top) return <Loading />;
  return (
    <Bars
      items={(top.domains ?? []).map((d) => ({
        label: d.domain,
        count: d.count,
        ...(link && {
          href: `/queries?domain=${encodeURIComponent(d.domain)}${blocked ? "&upstream=blocklist" : ""}`,
        }),
      }))}
      total={blocked ? top.blocked_queries : top.total_queries}
    />
  );
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
          label={t("Total queries")}
          value={num(q.total)}
          sub={plural(s.clients.active, { one: "{count} active client", other: "{count} active clients" })}
        />
        <Stat
          testid="stat-blocked"
          kind="red"
          label={t("Queries blocked")}
          value={num(q.blocked)}
          sub={plural(q.total, { one: "of {count} query", other: "of {count} queries" })}
        />
        <Stat
          testid="stat-percent"
          kind="amber"
          label={t("Percent blocked")}
          value={pct(q.percent_blocked)}
          sub={plural(q.unique_domains, { one: "{count} distinct domain", other: "{count} distinct domains" })}
        />
        <Stat
          testid="stat-gravity"
          kind="green"
          label={t("Domains on lists")}
          value={num(s.gravity.domains_being_blocked)}
          sub={t("updated {when}", { when: ago(s.gravity.last_update) })}
        />
      </div>
      <Card title={t("Queries, last 24 hours")} class="span2">
        <QueriesChart />
      </Card>
      <Card title={t("Clients over time")} class="span2">
        <ClientsChart />
      </Card>
      <Card title={t("Query types")}>
        <Bars
          items={types.map(([type, n]) => ({ label: type, count: n, href: `/queries?type=${type}` }))}
          total={q.total}
        />
      </Card>
      <Card title={t("Upstreams")}>
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
      <Card title={t("Top permitted domains")}>
        <TopDomains top={top} blocked={false} link />
      </Card>
      <Card title={t("Top blocked domains")}>
        <TopDomains top={topBlocked} blocked={true} link />
      </Card>
      <Card title={t("Top clients")}>
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
