// Family controls: per group, the services it blocks, the search engines whose safe mode it enforces, its
// weekly schedule and its own upstreams; and pausing a device. Everything here is Moat's own API
// (/api/services, /api/safesearch, /api/schedules, /api/upstreams, /api/pauses), applied at once by DNS.
import { useEffect, useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Button, Card, Field, Loading, useAction, TextInput } from "../components.tsx";
import { useGroups } from "../crud.tsx";
import { NameChecks } from "../fields.tsx";
import { intlLocale, msg, t } from "../i18n.ts";
import { PauseFor, pauseMinutes } from "../pause.tsx";
import { usePoll } from "../poll.ts";

type Service = { id: string; name: string; category: string };
type Engine = { id: string; name: string };
type Window = { days: number[]; start: string; end: string };
type Schedule = { windows: Window[]; services: string[]; lists?: number[]; everything: boolean };
type BlockList = { id: number; address: string; type: string; comment: string | null };
type Pause = { client: string; until: number | null };

/** the services' categories (src/policies/services/catalogue.ts) as the page names them; msg() labels */
const CATEGORIES: Record<string, string> = {
  video: msg("Video"),
  social: msg("Social networks"),
  chat: msg("Chat"),
  streaming: msg("Streaming"),
  games: msg("Games"),
  shopping: msg("Shopping"),
  ai: msg("AI assistants"),
  other: msg("Other"),
};

/** the week's days by the API's numbers (0 is Sunday), named in the dashboard's language (4 January 1970 was a Sunday) */
const days = (): string[] => {
  const f = new Intl.DateTimeFormat(intlLocale(), { weekday: "short", timeZone: "UTC" });
  return [0, 1, 2, 3, 4, 5, 6].map((n) => f.format(Date.UTC(1970, 0, 4 + n)));
};

/** a category by its label; one the page does not know yet as the API names it */
function Category({ id }: { id: string }) {
  const label = CATEGORIES[id];
  return label ? t(label) : <span data-raw>{id}</span>;
}

function Checks<T extends { id: string; name: string }>({
  items,
  value,
  onChange,
  testid,
}: {
  items: T[];
  value: string[];
  onChange: (v: string[]) => void;
  testid: string;
}) {
  return (
    <div class="chips" data-testid={testid}>
      <NameChecks items={items} value={value} onChange={onChange} />
    </div>
  );
}

function GroupControls({
  group,
  services,
  engines,
  lists,
}: {
  group: string;
  services: Service[];
  engines: Engine[];
  lists: BlockList[];
}) {
  const [blocked, setBlocked] = useState<string[] | null>(null);
  const [safe, setSafe] = useState<string[] | null>(null);
  const [sched, setSched] = useState<Schedule | null>(null);
  const [upstreams, setUpstreams] = useState<string | null>(null);
  const [busy, run] = useAction();
  useEffect(() => {
    setBlocked(null);
    void Promise.all([
      get<{ groups: Array<{ services: string[] }> }>(`/services/groups/${enc(group)}`),
      get<{ groups: Array<{ engines: string[] }> }>(`/safesearch/groups/${enc(group)}`),
      get<{ groups: Array<{ schedule: Schedule | null }> }>(`/schedules/groups/${enc(group)}`),
      get<{ groups: Array<{ upstreams: string[] }> }>(`/upstreams/groups/${enc(group)}`),
    ]).then(([s, e, c, u]) => {
      setUpstreams((u.groups[0]?.upstreams ?? []).join(", "));
      setBlocked(s.groups[0]?.services ?? []);
      setSafe(e.groups[0]?.engines ?? []);
      setSched(c.groups[0]?.schedule ?? { windows: [], services: [], everything: false });
    });
  }, [group]);
  if (blocked === null || safe === null || sched === null || upstreams === null) return <Loading />;
  const categories = [...new Set(services.map((s) => s.category))];
  const setWindow = (i: number, w: Partial<Window>) =>
    setSched({ ...sched, windows: sched.windows.map((x, j) => (j === i ? { ...x, ...w } : x)) });
  const save = () =>
    run(
      async () => {
        await api("PUT", `/services/groups/${enc(group)}`, { services: blocked });
        await api("PUT", `/safesearch/groups/${enc(group)}`, { engines: safe });
        await api("PUT", `/schedules/groups/${enc(group)}`, sched);
        const list = upstreams
          .split(/[\s,]+/)
          .map((x) => x.trim())
          .filter(Boolean);
        await api("PUT", `/upstreams/groups/${enc(group)}`, { upstreams: list });
      },
      t("{group} saved", { group }),
    );
  return (
    <div class="stack">
      <h3>{t("Blocked services")}</h3>
      {categories.map((c) => (
        <div key={c}>
          <strong class="muted">
            <Category id={c} />
          </strong>
          <Checks
            items={services.filter((s) => s.category === c)}
            value={blocked}
            onChange={setBlocked}
            testid={`services-${c}`}
          />
        </div>
      ))}
      <h3>{t("Safe search")}</h3>
      <Checks items={engines} value={safe} onChange={setSafe} testid="safesearch" />
      <h3>{t("Schedule")}</h3>
      <p class="muted">
        {t("While a window is open, block the services and block lists picked here, or everything but the allow list.")}
      </p>
      {sched.windows.map((w, i) => (
        <div class="row wrap" key={i} data-testid="window">
          {days().map((d, n) => (
            <label key={d} class="check">
              <input
                type="checkbox"
                checked={w.days.includes(n)}
                onChange={(e) =>
                  setWindow(i, {
                    days: (e.target as HTMLInputElement).checked
                      ? [...w.days, n].sort()
                      : w.days.filter((x) => x !== n),
                  })
                }
              />
              {d}
            </label>
          ))}
          <input
            type="time"
            aria-label={t("from")}
            value={w.start}
            onInput={(e) => setWindow(i, { start: (e.target as HTMLInputElement).value })}
          />
          <input
            type="time"
            aria-label={t("until")}
            value={w.end}
            onInput={(e) => setWindow(i, { end: (e.target as HTMLInputElement).value })}
          />
          <Button kind="ghost" onClick={() => setSched({ ...sched, windows: sched.windows.filter((_, j) => j !== i) })}>
            {t("Remove")}
          </Button>
        </div>
      ))}
      <div class="row">
        <Button
          onClick={() =>
            setSched({ ...sched, windows: [...sched.windows, { days: [1, 2, 3, 4, 5], start: "21:00", end: "07:00" }] })
          }
        >
          {t("Add a window")}
        </Button>
        <label class="check">
          <input
            type="checkbox"
            checked={sched.everything}
            onChange={(e) => setSched({ ...sched, everything: (e.target as HTMLInputElement).checked })}
          />
          {t("Everything but the allow list")}
        </label>
      </div>
      {!sched.everything && (
        <Checks
          items={services}
          value={sched.services}
          onChange={(v) => setSched({ ...sched, services: v })}
          testid="scheduled-services"
        />
      )}
      {!sched.everything && lists.length > 0 && (
        <Checks
          items={lists.map((l) => ({ id: String(l.id), name: l.comment || l.address }))}
          value={(sched.lists ?? []).map(String)}
          onChange={(v) => setSched({ ...sched, lists: v.map(Number) })}
          testid="scheduled-lists"
        />
      )}
      <h3>{t("Upstreams")}</h3>
      <Field
        label={t("The group's own DNS servers (empty: the ones in Settings)")}
        id="f-upstreams"
        hint={t("e.g. a family-filtering resolver: {example}", {
          example: "1.1.1.3, tls://family.cloudflare-dns.com@1.1.1.3",
        })}
      >
        <TextInput id="f-upstreams" value={upstreams} onValue={setUpstreams} />
      </Field>
      <div class="row end">
        <Button kind="primary" class="clip" busy={busy} onClick={save} title={t("Save {group}", { group })}>
          {t("Save {group}", { group })}
        </Button>
      </div>
    </div>
  );
}

function Pauses() {
  const { data, reload } = usePoll(() => get<{ pauses: Pause[] }>("/pauses").then((r) => r.pauses), 15000);
  const [client, setClient] = useState("");
  const [minutes, setMinutes] = useState("60");
  const [busy, run] = useAction();
  const pause = (e: Event) => {
    e.preventDefault();
    void run(
      () => api("POST", `/pauses/${enc(client.trim())}`, { minutes: pauseMinutes(minutes) }),
      t("{client} paused", { client: client.trim() }),
    ).then(reload);
  };
  return (
    <Card title={t("Pause a device")}>
      <form class="form row wrap" onSubmit={pause}>
        <Field label={t("Device (address, MAC, host name or client ID)")} id="p-client">
          <TextInput id="p-client" required value={client} onValue={setClient} />
        </Field>
        <PauseFor id="p-minutes" value={minutes} onValue={setMinutes} />
        <Button type="submit" kind="primary" busy={busy} class="align-end">
          {t("Pause")}
        </Button>
      </form>
      {!data ? (
        <Loading />
      ) : data.length === 0 ? (
        <p class="muted">{t("No device is paused.")}</p>
      ) : (
        <ul data-testid="pauses">
          {data.map((p) => (
            <li key={p.client}>
              <strong data-raw>{p.client}</strong>{" "}
              {p.until === null
                ? t("until resumed")
                : t("until {time}", { time: new Date(p.until * 1000).toLocaleTimeString(intlLocale()) })}{" "}
              <Button
                kind="ghost"
                onClick={() =>
                  run(
                    () => api("DELETE", `/pauses/${enc(p.client)}`),
                    t("{client} resumed", { client: p.client }),
                  ).then(reload)
                }
              >
                {t("Resume")}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function Family() {
  const groups = useGroups();
  const [group, setGroup] = useState<string>("");
  const cat = usePoll(
    () =>
      Promise.all([
        get<{ services: Service[] }>("/services").then((r) => r.services),
        get<{ engines: Engine[] }>("/safesearch").then((r) => r.engines),
        get<{ lists: BlockList[] }>("/lists").then((r) => r.lists.filter((l) => l.type === "block")),
      ]),
    0,
  ).data;
  const current = group || groups[0]?.name || "";
  return (
    <div class="stack">
      <Pauses />
      <Card
        title={t("Group controls")}
        actions={
          <select
            aria-label={t("group")}
            value={current}
            onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}
          >
            {groups.map((g) => (
              <option key={g.id} value={g.name} data-raw>
                {g.name}
              </option>
            ))}
          </select>
        }
      >
        {!cat || !current ? (
          <Loading />
        ) : (
          <GroupControls key={current} group={current} services={cat[0]} engines={cat[1]} lists={cat[2]} />
        )}
      </Card>
    </div>
  );
}
