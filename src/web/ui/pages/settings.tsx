// Settings: DNS (upstreams, conditional forwarding, blocking mode, rate limit), privacy and retention,
// maintenance and the system's state here; the other cards (security, backup, import, listening, encrypted DNS,
// sessions, fleet, updates) in settings/. Each card saves on its own (settings/save.ts); errors show next to the
// setting they name.
import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction } from "../components.tsx";
import { Check, FormEnd } from "../fields.tsx";
import { bytes, duration } from "../format.ts";
import { intlLocale, t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { UPSTREAM_PRESETS } from "../presets.ts";
import { EncryptedDnsCard } from "./settings/encrypted.tsx";
import { FleetCard } from "./settings/fleet.tsx";
import { ListeningCard } from "./settings/listening.tsx";
import { AccessCard } from "./settings/access.tsx";
import { useSaveConfig } from "./settings/save.ts";
import { SessionsCard } from "./settings/sessions.tsx";
import { SecuritySettings } from "./settings/security.tsx";
import { Backup } from "./settings/backup.tsx";
import { UpdateCard } from "./settings/update.tsx";
import { SettingField, SettingText, useEnvKeys } from "./settings/env.tsx";
import { UpstreamTest } from "./settings/upstream-test.tsx";
import { ImportCard } from "./settings/import.tsx";

type Cfg = {
  dns: {
    upstreams: string[];
    recursive: { active: boolean };
    upstreamMode: string;
    revServers: string[];
    blocking: { mode: string };
    rateLimit: { count: number; interval: number };
  };
  misc: { privacylevel: number };
  database: { maxDBdays: number };
};

/** a figure with `digits` decimals in the dashboard's language (1.5 in English, 1,5 in German) */
const fixed = (n: number, digits: number) =>
  n.toLocaleString(intlLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits });

const lines = (s: string) =>
  s
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function DnsSettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const [ups, setUps] = useState(cfg.dns.upstreams.join("\n"));
  const [own, setOwn] = useState(cfg.dns.recursive.active);
  const [upMode, setUpMode] = useState(cfg.dns.upstreamMode);
  const [rev, setRev] = useState(cfg.dns.revServers.join("\n"));
  const [mode, setMode] = useState(cfg.dns.blocking.mode);
  const [rlCount, setRlCount] = useState(String(cfg.dns.rateLimit.count));
  const [rlInterval, setRlInterval] = useState(String(cfg.dns.rateLimit.interval));
  const { errors, busy, save: saveValues } = useSaveConfig(reload);
  const save = (e: Event) => {
    e.preventDefault();
    void saveValues({
      "dns.upstreams": lines(ups),
      "dns.recursive.active": own,
      "dns.upstreamMode": upMode,
      "dns.revServers": rev
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean),
      "dns.blocking.mode": mode,
      "dns.rateLimit.count": Number(rlCount),
      "dns.rateLimit.interval": Number(rlInterval),
    });
  };
  const addPreset = (p: (typeof UPSTREAM_PRESETS)[number]) => setUps([...new Set([...lines(ups), ...p.v4])].join("\n"));
  return (
    <Card title={t("DNS")}>
      <form class="form" onSubmit={save}>
        <SettingField
          setting="dns.recursive.active"
          errors={errors}
          label={t("Resolve from the root servers")}
          id="s-recursive"
          hint={t(
            "Moat asks the root servers and then each domain's own servers, as unbound does: no resolver company sees every name your network looks up, and DNSSEC is checked here. The upstream servers below then serve only conditional forwarding and groups with servers of their own.",
          )}
        >
          <Check id="s-recursive" label={t("Resolve myself (private)")} checked={own} set={setOwn} />
        </SettingField>
        <SettingField
          setting="dns.upstreams"
          errors={errors}
          label={t("Upstream DNS servers")}
          id="s-upstreams"
          hint={t("One per line: IP or IP#port, tls://host, https://host/dns-query; [/corp.example/]IP for one domain")}
        >
          <textarea
            id="s-upstreams"
            rows={4}
            value={ups}
            onInput={(e) => setUps((e.target as HTMLTextAreaElement).value)}
          />
        </SettingField>
        <div class="presets row wrap">
          <span class="muted">{t("Add:")}</span>
          {UPSTREAM_PRESETS.map((p) => (
            <button
              key={p.name}
              type="button"
              class="chip as-button"
              title={t(p.note)}
              onClick={() => addPreset(p)}
              data-raw
            >
              {p.name}
            </button>
          ))}
        </div>
        <UpstreamTest upstreams={lines(ups)} />
        <SettingField setting="dns.upstreamMode" errors={errors} label={t("Upstream mode")} id="s-upmode">
          <select id="s-upmode" value={upMode} onChange={(e) => setUpMode((e.target as HTMLSelectElement).value)}>
            <option value="FASTEST">{t("Fastest first (the next one if it fails)")}</option>
            <option value="LOAD_BALANCE">{t("Load balance (quicker ones more often)")}</option>
            <option value="PARALLEL">{t("Parallel (all at once, first answer wins)")}</option>
          </select>
        </SettingField>
        <SettingField
          setting="dns.revServers"
          errors={errors}
          label={t("Conditional forwarding")}
          id="s-rev"
          hint={t("One per line: {example} (active, network, router, local domain)", {
            example: "true,192.168.0.0/24,192.168.0.1,lan",
          })}
        >
          <textarea id="s-rev" rows={2} value={rev} onInput={(e) => setRev((e.target as HTMLTextAreaElement).value)} />
        </SettingField>
        <div class="row wrap">
          <SettingField setting="dns.blocking.mode" errors={errors} label={t("Blocking mode")} id="s-mode">
            <select id="s-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
              <option value="NULL">NULL (0.0.0.0 / ::)</option>
              <option value="IP_NODATA_AAAA">{t("IP, no AAAA")}</option>
              <option value="IP">{t("IP (Moat's address)")}</option>
              <option value="NX">NXDOMAIN</option>
              <option value="NODATA">NODATA</option>
            </select>
          </SettingField>
          <SettingText
            setting="dns.rateLimit.count"
            errors={errors}
            label={t("Rate limit: queries")}
            id="s-rl"
            hint={t("per client; 0 turns it off")}
            number
            value={rlCount}
            onValue={setRlCount}
          />
          <SettingText
            setting="dns.rateLimit.interval"
            errors={errors}
            label={t("…per seconds")}
            id="s-rli"
            number
            value={rlInterval}
            onValue={setRlInterval}
          />
        </div>
        <FormEnd error={errors.form} busy={busy} label={t("Save DNS settings")} />
      </form>
    </Card>
  );
}

function PrivacySettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const [level, setLevel] = useState(String(cfg.misc.privacylevel));
  const [days, setDays] = useState(String(cfg.database.maxDBdays));
  const { errors, busy, save: saveValues } = useSaveConfig(reload);
  const save = (e: Event) => {
    e.preventDefault();
    void saveValues({ "misc.privacylevel": Number(level), "database.maxDBdays": Number(days) });
  };
  return (
    <Card title={t("Privacy and retention")}>
      <form class="form" onSubmit={save}>
        <div class="row wrap">
          <SettingField setting="misc.privacylevel" errors={errors} label={t("Privacy level")} id="s-privacy">
            <select id="s-privacy" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
              <option value="0">{t("0: show everything")}</option>
              <option value="1">{t("1: hide domains")}</option>
              <option value="2">{t("2: hide domains and clients")}</option>
              <option value="3">{t("3: anonymous")}</option>
            </select>
          </SettingField>
          <SettingText
            setting="database.maxDBdays"
            errors={errors}
            label={t("Keep the query log for (days)")}
            id="s-days"
            hint={t("0 keeps no long-term log")}
            number
            value={days}
            onValue={setDays}
          />
        </div>
        <FormEnd error={errors.form} busy={busy} label={t("Save")} />
      </form>
    </Card>
  );
}

function Maintenance() {
  const [busy, run] = useAction();
  return (
    <Card title={t("Maintenance")}>
      <div class="row wrap">
        <Button
          busy={busy}
          onClick={async () => {
            if (
              await confirmAction(t("Delete the last 24 hours of the query log and the statistics?"), t("Flush logs"))
            )
              await run(() => api("POST", "/action/flush/logs"), t("Logs flushed"));
          }}
        >
          {t("Flush logs")}
        </Button>
        <Button
          busy={busy}
          onClick={async () => {
            if (
              await confirmAction(
                t("Restart the DNS service? Clients get no answers for a moment and the cache is emptied."),
                t("Restart DNS"),
              )
            )
              await run(() => api("POST", "/action/restartdns"), t("DNS restarted"));
          }}
        >
          {t("Restart DNS")}
        </Button>
      </div>
    </Card>
  );
}

type SystemInfo = {
  system: {
    uptime: number;
    memory: { ram: { total: number; used: number; "%used": number } };
    cpu: { nprocs: number; "%cpu": number; load: { raw: number[] } };
    ftl: { "%mem": number; "%cpu": number };
  };
};
type Sensors = { sensors: { cpu_temp: number | null; unit: string } };
type Version = {
  version: {
    moat?: { version: string; commit: string; date: string; runtime: string };
    core: { local: { version: string; hash: string } };
  };
};
type Host = { host: { uname: { nodename: string; machine: string; release: string }; model: string | null } };

function SystemCard() {
  const { data: sys } = usePoll(() => get<SystemInfo>("/info/system"), 15000);
  const { data: sens } = usePoll(() => get<Sensors>("/info/sensors"), 15000);
  const { data: ver } = usePoll(() => get<Version>("/info/version"), 0);
  const { data: host } = usePoll(() => get<Host>("/info/host"), 0);
  if (!sys)
    return (
      <Card title={t("System")}>
        <Loading />
      </Card>
    );
  const m = sys.system;
  const v =
    ver?.version.moat ??
    (ver
      ? { version: ver.version.core.local.version, commit: ver.version.core.local.hash, date: "", runtime: "" }
      : null);
  return (
    <Card title={t("System")}>
      <dl class="facts" data-testid="system-info">
        <dt>{t("Host")}</dt>
        <dd data-raw>
          {host
            ? `${host.host.uname.nodename} (${host.host.model ?? host.host.uname.machine}, Linux ${host.host.uname.release})`
            : "…"}
        </dd>
        <dt>{t("Uptime")}</dt>
        <dd>{duration(m.uptime)}</dd>
        <dt>{t("CPU")}</dt>
        <dd>
          {t("{cpu}% of {cores} cores · load {load} · Moat {moat}%", {
            cpu: fixed(m.cpu["%cpu"], 1),
            cores: m.cpu.nprocs,
            load: m.cpu.load.raw.map((l) => fixed(l, 2)).join(" "),
            moat: fixed(m.ftl["%cpu"], 1),
          })}
        </dd>
        <dt>{t("Memory")}</dt>
        <dd>
          {t("{used} of {total} ({share}%) · Moat {moat}%", {
            used: bytes(m.memory.ram.used),
            total: bytes(m.memory.ram.total),
            share: fixed(m.memory.ram["%used"], 1),
            moat: fixed(m.ftl["%mem"], 1),
          })}
        </dd>
        <dt>{t("Temperature")}</dt>
        <dd>
          {sens?.sensors.cpu_temp != null ? `${fixed(sens.sensors.cpu_temp, 1)} °${sens.sensors.unit}` : t("no sensor")}
        </dd>
        <dt>{t("Version")}</dt>
        <dd>
          {v ? (
            <>
              <span data-raw>{`Moat ${v.version} (${v.commit}${v.date ? `, ${v.date.slice(0, 10)}` : ""})`}</span>
              {v.runtime ? ` ${t("on {runtime}", { runtime: v.runtime })}` : ""}
            </>
          ) : (
            "…"
          )}
        </dd>
      </dl>
    </Card>
  );
}

export function Settings() {
  const { data: cfg, error, reload } = usePoll(() => get<{ config: Cfg }>("/config").then((r) => r.config), 0);
  useEnvKeys();
  return (
    <div class="stack">
      <ErrorNote error={error} />
      {cfg ? (
        <>
          <DnsSettings cfg={cfg} reload={reload} />
          <PrivacySettings cfg={cfg} reload={reload} />
        </>
      ) : (
        !error && <Loading />
      )}
      <ListeningCard />
      <AccessCard />
      <EncryptedDnsCard />
      <SecuritySettings />
      <SessionsCard />
      <FleetCard />
      <Backup />
      <ImportCard />
      <Maintenance />
      <SystemCard />
      <UpdateCard />
    </div>
  );
}
