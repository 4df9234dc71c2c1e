// Time-series charts with uPlot (canvas, ~50 KB, draws 24 h of bins in well under a millisecond).
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { num } from "./format.ts";
import { intlLocale, t } from "./i18n.ts";

export type Series = {
  label: string;
  color: string;
  values: number[];
  bars?: boolean;
  /** the legend's figure at bin i, or over the whole range (null: the cursor is off the chart) */
  legend?: (i: number | null) => string;
};

/** the sum of a series, which the legend shows while no bin is pointed at (uPlot shows "--" or nothing) */
const total = (values: number[]) => values.reduce((a, b) => a + (b ?? 0), 0);

function legendText(s: Series | undefined, i: number | null): string {
  if (!s) return "";
  if (s.legend) return s.legend(i);
  return num(i == null ? total(s.values) : (s.values[i] ?? 0));
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

const resolve = (c: string) => (c.startsWith("var(") ? cssVar(c.slice(4, -1)) : c);

/**
 * uPlot's axis dates through Intl in the dashboard's language: each line of uPlot's template ("{h}{aa}",
 * "{M}/{D}", "{YYYY}") becomes the Intl parts it names, so a German axis reads "14 Uhr" and "6.12.".
 */
function fmtDate(template: string): (d: Date) => string {
  const lines = template.split("\n").map((line) => {
    const o: Intl.DateTimeFormatOptions = {};
    if (/\{YY/.test(line)) o.year = "numeric";
    if (/\{M/.test(line)) o.month = /\{MMM/.test(line) ? "short" : "numeric";
    if (/\{D/.test(line)) o.day = "numeric";
    if (/\{[hH]/.test(line)) o.hour = "numeric";
    if (/\{mm/.test(line)) o.minute = "2-digit";
    if (/\{ss/.test(line)) o.second = "2-digit";
    return Object.keys(o).length ? new Intl.DateTimeFormat(intlLocale(), o) : null;
  });
  return (d) => lines.map((f) => (f ? f.format(d) : "")).join("\n");
}

/** x: unix seconds; series drawn in order (a later bar series paints over an earlier one) */
export function TimeChart({
  x,
  series,
  height = 220,
  label,
}: {
  x: number[];
  series: Series[];
  height?: number;
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(series);
  latest.current = series;
  const shape = series.map((s) => s.label).join("|");

  useEffect(() => {
    const el = box.current!;
    const bars = uPlot.paths.bars!({ size: [0.9, 40], gap: 1 });
    const opts: uPlot.Options = {
      width: el.clientWidth,
      height,
      cursor: { points: { show: false }, drag: { x: false, y: false } },
      legend: { show: true, live: true },
      fmtDate,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [
        { stroke: cssVar("--muted"), grid: { stroke: cssVar("--grid"), width: 1 }, ticks: { show: false } },
        {
          stroke: cssVar("--muted"),
          grid: { stroke: cssVar("--grid"), width: 1 },
          ticks: { show: false },
          size: 48,
          // the counts as the language writes them (0,5 in German)
          values: (_u, splits) => splits.map((v) => num(v)),
        },
      ],
      series: [
        {
          label: t("Time"),
          // with no bin pointed at, the series' figures are totals over the whole chart
          value: (_u, v) =>
            v == null
              ? t("total")
              : new Date(v * 1000).toLocaleString(intlLocale(), {
                  hour: "2-digit",
                  minute: "2-digit",
                  day: "numeric",
                  month: "short",
                }),
        },
        ...series.map((s, k) => ({
          label: s.label,
          stroke: resolve(s.color),
          fill: s.bars ? resolve(s.color) : undefined,
          width: s.bars ? 0 : 2,
          points: { show: false },
          ...(s.bars ? { paths: bars } : {}),
          value: (_u: uPlot, _v: number, _si: number, i: number | null) => legendText(latest.current[k], i),
        })),
      ],
    };
    plot.current = new uPlot(opts, [x, ...series.map((s) => s.values)], el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, height]);

  useEffect(() => {
    plot.current?.setData([x, ...series.map((s) => s.values)]);
  }, [x, series]);

  return <div class="chart" ref={box} role="img" aria-label={label} data-raw />;
}
