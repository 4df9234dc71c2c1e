// Settings: DNS (upstreams, conditional forwarding, blocking mode, rate limit), privacy and retention,
// maintenance and the system's state here; the other cards (security, backup, import, listening, encrypted DNS,
// sessions, fleet, updates) in settings/. Each card saves on its own (settings/save.ts); errors show next to the
// setting they name.
import { useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction, TextInput } from "../components.tsx";
import { bytes, duration } from "../format.ts";
import { usePoll } from "../poll.ts";
import { UPSTREAM_PRESETS } from "../presets.ts";
import { EncryptedDnsCard } from "./settings/encrypted.tsx";
import { FleetCard } from "./settings/fleet.tsx";
import { ListeningCard } from "./settings/listening.tsx";
import { saveConfig } from "./settings/save.ts";
import { SessionsCard } from "./settings/sessions.tsx";
import { SecuritySettings } from "./settings/security.tsx";
import { Backup } from "./settings/backup.tsx";
import { UpdateCard } from "./settings/update.tsx";
import { SettingField, useEnvKeys } from "./settings/env.tsx";
import { UpstreamTest } from "./settings/upstream-test.tsx";
import { ImportCard } from "./settings/import.tsx";
import { t } from "../i18n.ts";

type Cfg = {
  dns: {
    upstreams: string[];
    upstreamMode: string;
    revServers: string[];
    blocking: { mode: string };
    rateLimit: { count: number; interval: number };
  };
  misc: { privacylevel: number };
  database: { maxDBdays: number };
};

const lines = (s: string) =>
  s
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function DnsSettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const [ups, setUps] = useState(cfg.dns.upstreams.join("\n"));
  const [upMode, setUpMode] = useState(cfg.dns.upstreamMode);
  const [rev, setRev] = useState(cfg.dns.revServers.join("\n"));
  const [mode, setMode] = useState(cfg.dns.blocking.mode);
  const [rlCount, setRlCount] = useState(String(cfg.dns.rateLimit.count));
  const [rlInterval, setRlInterval] = useState(String(cfg.dns.rateLimit.interval));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const ok = await saveConfig(
      {
        "dns.upstreams": lines(ups),
        "dns.upstreamMode": upMode,
        "dns.revServers": rev
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
        "dns.blocking.mode": mode,
        "dns.rateLimit.count": Number(rlCount),
        "dns.rateLimit.interval": Number(rlInterval),
      },
      setErrors,
    );
    setBusy(false);
    if (ok) reload();
  };
  const addPreset = (p: (typeof UPSTREAM_PRESETS)[number]) => setUps([...new Set([...lines(ups), ...p.v4])].join("\n"));
  return (
    <Card title="DNS">
      <form class="form" onSubmit={save}>
        <SettingField
          setting="dns.upstreams"
          errors={errors}
          label="Upstream DNS servers"
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
          <span class="muted">Add:</span>
          {UPSTREAM_PRESETS.map((p) => (
            <button key={p.name} type="button" class="chip as-button" title={p.note} onClick={() => addPreset(p)}>
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
          label="Conditional forwarding"
          id="s-rev"
          hint="One per line: true,192.168.0.0/24,192.168.0.1,lan (active, network, router, local domain)"
        >
          <textarea id="s-rev" rows={2} value={rev} onInput={(e) => setRev((e.target as HTMLTextAreaElement).value)} />
        </SettingField>
        <div class="row wrap">
          <SettingField setting="dns.blocking.mode" errors={errors} label="Blocking mode" id="s-mode">
            <select id="s-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
              <option value="NULL">NULL (0.0.0.0 / ::)</option>
              <option value="IP_NODATA_AAAA">IP, no AAAA</option>
              <option value="IP">IP (Moat's address)</option>
              <option value="NX">NXDOMAIN</option>
              <option value="NODATA">NODATA</option>
            </select>
          </SettingField>
          <SettingField
            setting="dns.rateLimit.count"
            errors={errors}
            label="Rate limit: queries"
            id="s-rl"
            hint="per client; 0 turns it off"
          >
            <TextInput id="s-rl" type="number" min="0" value={rlCount} onValue={setRlCount} />
          </SettingField>
          <SettingField setting="dns.rateLimit.interval" errors={errors} label="…per seconds" id="s-rli">
            <TextInput id="s-rli" type="number" min="0" value={rlInterval} onValue={setRlInterval} />
          </SettingField>
        </div>
        {errors.form && <p class="note error">{errors.form}</p>}
        <div class="row end">
          <Button type="submit" kind="primary" busy={busy}>
            Save DNS settings
          </Button>
        </div>
      </form>
    </Card>
  );
}

function PrivacySettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const [level, setLevel] = useState(String(cfg.misc.privacylevel));
  const [days, setDays] = useState(String(cfg.database.maxDBdays));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    if (await saveConfig({ "misc.privacylevel": Number(level), "database.maxDBdays": Number(days) }, setErrors))
      reload();
    setBusy(false);
  };
  return (
    <Card title="Privacy and retention">
      <form class="form" onSubmit={save}>
        <div class="row wrap">
          <SettingField setting="misc.privacylevel" errors={errors} label="Privacy level" id="s-privacy">
            <select id="s-privacy" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
              <option value="0">0: show everything</option>
              <option value="1">1: hide domains</option>
              <option value="2">2: hide domains and clients</option>
              <option value="3">3: anonymous</option>
            </select>
          </SettingField>
          <SettingField
            setting="database.maxDBdays"
            errors={errors}
            label="Keep the query log for (days)"
            id="s-days"
            hint="0 keeps no long-term log"
          >
            <TextInput id="s-days" type="number" min="0" value={days} onValue={setDays} />
          </SettingField>
        </div>
        {errors.form && <p class="note error">{errors.form}</p>}
        <div class="row end">
          <Button type="submit" kind="primary" busy={busy}>
            Save
          </Button>
        </div>
      </form>
    </Card>
  );
}

function Maintenance() {
  const [busy, run] = useAction();
  return (
    <Card title="Maintenance">
      <div class="row wrap">
        <Button
          busy={busy}
          onClick={async () => {
            if (await confirmAction("Delete the last 24 hours of the query log and the statistics?", "Flush logs"))
              await run(() => api("POST", "/action/flush/logs"), "Logs flushed");
          }}
        >
          Flush logs
        </Button>
        <Button
          busy={busy}
          onClick={async () => {
            if (
              await confirmAction(
                "Restart the DNS service? Clients get no answers for a moment and the cache is emptied.",
                "Restart DNS",
              )
            )
              await run(() => api("POST", "/action/restartdns"), "DNS restarted");
          }}
        >
          Restart DNS
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
      <Card title="System">
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
    <Card title="System">
      <dl class="facts" data-testid="system-info">
        <dt>Host</dt>
        <dd>
          {host
            ? `${host.host.uname.nodename} (${host.host.model ?? host.host.uname.machine}, Linux ${host.host.uname.release})`
            : "…"}
        </dd>
        <dt>Uptime</dt>
        <dd>{duration(m.uptime)}</dd>
        <dt>CPU</dt>
        <dd>
          {m.cpu["%cpu"].toFixed(1)}% of {m.cpu.nprocs} cores · load {m.cpu.load.raw.map((l) => l.toFixed(2)).join(" ")}{" "}
          · Moat {m.ftl["%cpu"].toFixed(1)}%
        </dd>
        <dt>Memory</dt>
        <dd>
          {bytes(m.memory.ram.used)} of {bytes(m.memory.ram.total)} ({m.memory.ram["%used"].toFixed(1)}%) · Moat{" "}
          {m.ftl["%mem"].toFixed(1)}%
        </dd>
        <dt>Temperature</dt>
        <dd>
          {sens?.sensors.cpu_temp != null ? `${sens.sensors.cpu_temp.toFixed(1)} °${sens.sensors.unit}` : "no sensor"}
        </dd>
        <dt>Version</dt>
        <dd>
          {v
            ? `Moat ${v.version} (${v.commit}${v.date ? `, ${v.date.slice(0, 10)}` : ""})${v.runtime ? ` on ${v.runtime}` : ""}`
            : "…"}
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
