// Tools: the live tail of Moat's three logs, as Pi-hole's "Tools → Tail log files" does it: each
// poll asks only for the lines after the last one seen (GET /api/logs/<name>?nextID=…, the FIFO
// of src/api/logs/routes.ts), so a second of polling costs a few bytes. Pause stops asking (the
// view holds still while a person reads); the filter hides lines without the text. Gravity and the
// Teleporter live on their own pages; this page leads there.
import { useEffect, useRef, useState } from "preact/hooks";
import { enc, get } from "../api.ts";
import { Card, ErrorNote, Toggle } from "../components.tsx";
import { intlLocale, msg, plural, t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { linkProps } from "../router.ts";

type Line = { id: number; timestamp: number; message: string; prio: string | null };
type Reply = { log: Array<Omit<Line, "id">>; nextID: number; pid: number };

// Moat's own log first: it is the one Moat writes to today (src/core/log.ts); the other two FIFOs are
// served for Pi-hole's clients and stay empty until something logs there
const LOGS = [
  { name: "ftl", title: msg("Moat (FTL)") },
  { name: "dnsmasq", title: msg("DNS") },
  { name: "webserver", title: msg("Web server") },
] as const;
type LogName = (typeof LOGS)[number]["name"];

/** the tools Pi-hole keeps here that have a page of their own in Moat */
const ELSEWHERE = [
  {
    title: msg("Gravity"),
    text: msg("Download the subscribed lists again and rebuild the filter."),
    to: "/lists",
    link: msg("Update lists on the Lists page"),
  },
  {
    title: msg("Teleporter"),
    text: msg("Back up Moat's settings, lists, groups and clients to one file, or restore them from one."),
    to: "/settings",
    link: msg("Backup and restore in Settings"),
  },
];

/** the server keeps 515 lines per log; the page keeps a few more across polls, then drops the oldest */
const KEEP = 1000;
const EVERY_MS = 1000;

function time(unix: number): string {
  return new Date(unix * 1000).toLocaleTimeString(intlLocale(), { hour12: false });
}

function LogTail({ name }: { name: LogName }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [paused, setPaused] = useState(false);
  const [filter, setFilter] = useState("");
  const next = useRef(0);
  const pid = useRef(0);
  const box = useRef<HTMLPreElement>(null);
  const { error } = usePoll(
    async () => {
      // usePoll loads once when its deps change: a pause must not bring one more batch
      if (paused) return next.current;
      const r = await get<Reply>(`/logs/${name}?nextID=${enc(String(next.current))}`);
      // a restarted Moat numbers its lines from 0 again
      const fresh = r.pid !== pid.current;
      const start = fresh ? r.nextID - r.log.length : next.current;
      const got = r.log.map((l, i) => ({ ...l, id: start + i }));
      pid.current = r.pid;
      next.current = r.nextID;
      if (fresh || got.length) setLines((old) => (fresh ? got : [...old, ...got]).slice(-KEEP));
      return r.nextID;
    },
    paused ? 0 : EVERY_MS,
    [name, paused],
  );

  // follow the end unless the person scrolled up to read
  const atEnd = useRef(true);
  useEffect(() => {
    const el = box.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [lines, filter]);

  const needle = filter.trim().toLowerCase();
  const shown = needle ? lines.filter((l) => l.message.toLowerCase().includes(needle)) : lines;
  return (
    <div class="stack">
      <div class="toolbar log-tools">
        <label class="filter">
          <span>{t("Filter")}</span>
          <input
            type="search"
            name="log-filter"
            value={filter}
            placeholder={t("text in the line")}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </label>
        <span class="row">
          <Toggle id="log-live" checked={!paused} onChange={(on) => setPaused(!on)} label={t("Live")} />{" "}
          <label for="log-live">{paused ? t("Paused") : t("Live")}</label>
        </span>
      </div>
      <ErrorNote error={error} />
      <p class="muted" data-testid="log-count">
        {needle
          ? plural(
              lines.length,
              { one: "{shown} of {count} line", other: "{shown} of {count} lines" },
              { shown: shown.length },
            )
          : plural(lines.length, { one: "{count} line", other: "{count} lines" })}
      </p>
      <pre
        class="log-tail"
        ref={box}
        role="log"
        aria-label={t("{log} log", { log: t(LOGS.find((l) => l.name === name)!.title) })}
        aria-live="off"
        onScroll={(e) => {
          const el = e.currentTarget;
          atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {shown.length === 0 ? (
          <span class="muted">{lines.length ? t("No line matches.") : t("Nothing logged yet.")}</span>
        ) : (
          shown.map((l) => (
            <div key={l.id} class={`log-line ${l.prio ? `prio-${l.prio.toLowerCase()}` : ""}`}>
              <span class="log-time">{time(l.timestamp)}</span>{" "}
              <span data-raw lang="en">
                {l.message}
              </span>
            </div>
          ))
        )}
      </pre>
    </div>
  );
}

export function Tools() {
  const [tab, setTab] = useState<LogName>("ftl");
  const select = (name: LogName) => setTab(name);
  return (
    <div class="stack">
      <Card title={t("Live log")}>
        <div class="tabs" role="tablist" aria-label={t("Logs")}>
          {LOGS.map((l) => (
            <button
              key={l.name}
              type="button"
              role="tab"
              id={`tab-${l.name}`}
              aria-selected={tab === l.name}
              aria-controls="log-panel"
              tabIndex={tab === l.name ? 0 : -1}
              class={tab === l.name ? "tab active" : "tab"}
              onClick={() => select(l.name)}
              onKeyDown={(e) => {
                const k = LOGS.findIndex((x) => x.name === tab);
                const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
                if (!step) return;
                e.preventDefault();
                const to = LOGS[(k + step + LOGS.length) % LOGS.length]!.name;
                select(to);
                document.getElementById(`tab-${to}`)?.focus();
              }}
            >
              {t(l.title)}
            </button>
          ))}
        </div>
        <div id="log-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
          <LogTail key={tab} name={tab} />
        </div>
      </Card>
      <div class="grid-2">
        {ELSEWHERE.map((e) => (
          <Card key={e.to} title={t(e.title)}>
            <p>{t(e.text)}</p>
            <a class="btn" {...linkProps(e.to)}>
              {t(e.link)}
            </a>
          </Card>
        ))}
      </div>
    </div>
  );
}
