// Settings: DNS (upstreams, conditional forwarding, blocking mode, rate limit), privacy and retention,
// maintenance and the system's state here; the other cards (security, backup, import, listening, encrypted DNS,
// sessions, fleet, updates) in settings/. Each card saves on its own (settings/save.ts); errors show next to the
// setting they name.
import { api, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction } from "../components.tsx";
import { bytes, duration } from "../format.ts";
import { Options } from "../fields.tsx";
import { intlLocale, msg, t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { UPSTREAM_PRESETS } from "../presets.ts";
import { EncryptedDnsCard } from "./settings/encrypted.tsx";
import { FleetCard } from "./settings/fleet.tsx";
import { ListeningCard } from "./settings/listening.tsx";
import { AccessCard } from "./settings/access.tsx";
import { SessionsCard } from "./settings/sessions.tsx";
import { SecuritySettings } from "./settings/security.tsx";
import { Backup } from "./settings/backup.tsx";
import { UpdateCard } from "./settings/update.tsx";
import { useEnvKeys } from "./settings/env.tsx";
import {
  SettingCheck,
  SettingLines,
  SettingSelect,
  SettingsForm,
  SettingText,
  useSettingsForm,
} from "./settings/form.tsx";
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

const UPSTREAM_MODES: Array<[string, string]> = [
  ["FASTEST", msg("Fastest first (the next one if it fails)")],
  ["LOAD_BALANCE", msg("Load balance (quicker ones more often)")],
  ["PARALLEL", msg("Parallel (all at once, first answer wins)")],
];

/** the upstreams' entries: one a line, or several on one line apart by commas */
const upstreamLines = (s: string) =>
  s
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function DnsSettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const d = cfg.dns;
  const form = useSettingsForm(
    {
      "dns.upstreams": d.upstreams,
      "dns.recursive.active": d.recursive.active,
      "dns.upstreamMode": d.upstreamMode,
      "dns.revServers": d.revServers,
      "dns.blocking.mode": d.blocking.mode,
      "dns.rateLimit.count": d.rateLimit.count,
      "dns.rateLimit.interval": d.rateLimit.interval,
    },
    reload,
    { all: true, parse: { "dns.upstreams": upstreamLines } },
  );
  const ups = upstreamLines(form.text("dns.upstreams"));
  const addPreset = (p: (typeof UPSTREAM_PRESETS)[number]) =>
    form.set("dns.upstreams", [...new Set([...ups, ...p.v4])].join("\n"));
  return (
    <Card title={t("DNS")}>
      <SettingsForm form={form} label={t("Save DNS settings")}>
        <SettingCheck
          setting="dns.recursive.active"
          id="s-recursive"
          check={t("Resolve myself (private)")}
          field={{
            label: t("Resolve from the root servers"),
            hint: t(
              "Moat asks the root servers and then each domain's own servers, as unbound does: no resolver company sees every name your network looks up, and DNSSEC is checked here. The upstream servers below then serve only conditional forwarding and groups with servers of their own.",
            ),
          }}
        />
        <SettingLines
          setting="dns.upstreams"
          label={t("Upstream DNS servers")}
          id="s-upstreams"
          hint={t("One per line: IP or IP#port, tls://host, https://host/dns-query; [/corp.example/]IP for one domain")}
          rows={4}
        />
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
        <UpstreamTest upstreams={ups} />
        <SettingSelect setting="dns.upstreamMode" label={t("Upstream mode")} id="s-upmode">
          <Options choices={UPSTREAM_MODES} />
        </SettingSelect>
        <SettingLines
          setting="dns.revServers"
          label={t("Conditional forwarding")}
          id="s-rev"
          hint={t("One per line: {example} (active, network, router, local domain)", {
            example: "true,192.168.0.0/24,192.168.0.1,lan",
          })}
          rows={2}
        />
        <div class="row wrap">
          <SettingSelect setting="dns.blocking.mode" label={t("Blocking mode")} id="s-mode">
            <option value="NULL">NULL (0.0.0.0 / ::)</option>
            <option value="IP_NODATA_AAAA">{t("IP, no AAAA")}</option>
            <option value="IP">{t("IP (Moat's address)")}</option>
            <option value="NX">NXDOMAIN</option>
            <option value="NODATA">NODATA</option>
          </SettingSelect>
          <SettingText
            setting="dns.rateLimit.count"
            label={t("Rate limit: queries")}
            id="s-rl"
            hint={t("per client; 0 turns it off")}
          />
          <SettingText setting="dns.rateLimit.interval" label={t("…per seconds")} id="s-rli" />
        </div>
      </SettingsForm>
    </Card>
  );
}

const PRIVACY_LEVELS: Array<[string, string]> = [
  ["0", msg("0: show everything")],
  ["1", msg("1: hide domains")],
  ["2", msg("2: hide domains and clients")],
  ["3", msg("3: anonymous")],
];

function PrivacySettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const values = { "misc.privacylevel": cfg.misc.privacylevel, "database.maxDBdays": cfg.database.maxDBdays };
  const form = useSettingsForm(values, reload, { all: true });
  return (
    <Card title={t("Privacy and retention")}>
      <SettingsForm form={form} label={t("Save")}>
        <div class="row wrap">
          <SettingSelect setting="misc.privacylevel" label={t("Privacy level")} id="s-privacy">
            <Options choices={PRIVACY_LEVELS} />
          </SettingSelect>
          <SettingText
            setting="database.maxDBdays"
            label={t("Keep the query log for (days)")}
            id="s-days"
            hint={t("0 keeps no long-term log")}
          />
        </div>
      </SettingsForm>
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
