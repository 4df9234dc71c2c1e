// Settings: DNS (upstreams, conditional forwarding, blocking mode, rate limit), privacy and
// retention, security (password, 2FA, app password), backup (Teleporter), maintenance and the
// system's state. Each section saves on its own; errors show next to the setting they name.
import { useState } from "preact/hooks";
import { api, ApiError, get, patchConfig, request } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, Loading, toast, useAction } from "../components.tsx";
import { bytes, duration } from "../format.ts";
import { messagesMayChange } from "../messages.tsx";
import { usePoll } from "../poll.ts";
import { UPSTREAM_PRESETS } from "../presets.ts";
import { Qr } from "../qr.tsx";
import { logout, session } from "../session.ts";
import { useStore } from "../store.ts";
import { EncryptedDnsCard } from "./settings/encrypted.tsx";
import { FleetCard } from "./settings/fleet.tsx";
import { ListeningCard } from "./settings/listening.tsx";
import { SessionsCard } from "./settings/sessions.tsx";

type Cfg = {
  dns: {
    upstreams: string[];
    revServers: string[];
    blocking: { mode: string };
    rateLimit: { count: number; interval: number };
  };
  misc: { privacylevel: number };
  database: { maxDBdays: number };
};

/** errors keyed by config key; an error naming no key goes under "form" */
async function saveConfig(
  values: Record<string, unknown>,
  setErrors: (e: Record<string, string>) => void,
): Promise<boolean> {
  setErrors({});
  try {
    await patchConfig(values);
    const ups = values["dns.upstreams"];
    // saved, but DNS answers SERVFAIL for every name it cannot answer itself: not just "Saved"
    if (Array.isArray(ups) && ups.length === 0)
      toast("Saved, but with no upstream DNS servers every lookup of an outside name will fail (SERVFAIL)", "warn");
    else toast("Saved");
    // a setting may raise or clear a warning (an empty upstream list): the banners look again
    messagesMayChange.set(messagesMayChange.get() + 1);
    return true;
  } catch (e) {
    if (e instanceof ApiError)
      setErrors({
        [e.field && e.field in values ? e.field : (Object.keys(values).find((k) => e.field?.startsWith(k)) ?? "form")]:
          e.text,
      });
    else setErrors({ form: String(e) });
    return false;
  }
}

const lines = (s: string) =>
  s
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function DnsSettings({ cfg, reload }: { cfg: Cfg; reload: () => void }) {
  const [ups, setUps] = useState(cfg.dns.upstreams.join("\n"));
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
        <Field
          label="Upstream DNS servers"
          id="s-upstreams"
          error={errors["dns.upstreams"]}
          hint="One per line: IP or IP#port"
        >
          <textarea
            id="s-upstreams"
            rows={4}
            value={ups}
            onInput={(e) => setUps((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        <div class="presets row wrap">
          <span class="muted">Add:</span>
          {UPSTREAM_PRESETS.map((p) => (
            <button key={p.name} type="button" class="chip as-button" title={p.note} onClick={() => addPreset(p)}>
              {p.name}
            </button>
          ))}
        </div>
        <Field
          label="Conditional forwarding"
          id="s-rev"
          error={errors["dns.revServers"]}
          hint="One per line: true,192.168.0.0/24,192.168.0.1,lan (active, network, router, local domain)"
        >
          <textarea id="s-rev" rows={2} value={rev} onInput={(e) => setRev((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <div class="row wrap">
          <Field label="Blocking mode" id="s-mode" error={errors["dns.blocking.mode"]}>
            <select id="s-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
              <option value="NULL">NULL (0.0.0.0 / ::)</option>
              <option value="IP_NODATA_AAAA">IP, no AAAA</option>
              <option value="IP">IP (Moat's address)</option>
              <option value="NX">NXDOMAIN</option>
              <option value="NODATA">NODATA</option>
            </select>
          </Field>
          <Field
            label="Rate limit: queries"
            id="s-rl"
            error={errors["dns.rateLimit.count"]}
            hint="per client; 0 turns it off"
          >
            <input
              id="s-rl"
              type="number"
              min="0"
              value={rlCount}
              onInput={(e) => setRlCount((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label="…per seconds" id="s-rli" error={errors["dns.rateLimit.interval"]}>
            <input
              id="s-rli"
              type="number"
              min="0"
              value={rlInterval}
              onInput={(e) => setRlInterval((e.target as HTMLInputElement).value)}
            />
          </Field>
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
          <Field label="Privacy level" id="s-privacy" error={errors["misc.privacylevel"]}>
            <select id="s-privacy" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
              <option value="0">0: show everything</option>
              <option value="1">1: hide domains</option>
              <option value="2">2: hide domains and clients</option>
              <option value="3">3: anonymous</option>
            </select>
          </Field>
          <Field
            label="Keep the query log for (days)"
            id="s-days"
            error={errors["database.maxDBdays"]}
            hint="0 keeps no long-term log"
          >
            <input
              id="s-days"
              type="number"
              min="0"
              value={days}
              onInput={(e) => setDays((e.target as HTMLInputElement).value)}
            />
          </Field>
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

type Totp = {
  totp: { account: string; issuer: string; secret: string; digits: number; period: number; algorithm: string };
};

function SecuritySettings() {
  const s = useStore(session);
  const [pw, setPw] = useState("");
  const [pw2, setPw2] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, run] = useAction();
  const [totp, setTotp] = useState<Totp["totp"] | null>(null);
  const [code, setCode] = useState("");
  const [app, setApp] = useState<{ password: string; hash: string } | null>(null);
  const changePw = async (e: Event) => {
    e.preventDefault();
    if (pw !== pw2) return setErrors({ pw2: "The passwords differ" });
    if (
      !pw &&
      !(await confirmAction(
        "Remove the password? Anyone on your network can then change Moat's settings.",
        "Remove password",
      ))
    )
      return;
    if (await saveConfig({ "webserver.api.password": pw }, setErrors)) {
      setPw("");
      setPw2("");
      // every session ends with a new password
      if (pw) await logout();
      else session.set({ state: "open", totp: false });
    }
  };
  const enrol = async () => {
    const r = await run(() => get<Totp>("/auth/totp"));
    if (r) setTotp(r.totp);
  };
  const confirmTotp = async (e: Event) => {
    e.preventDefault();
    if (!totp) return;
    if (!(await verify(totp.secret, code, totp.period)))
      return setErrors({ totp: "That code does not match. Check the time on your phone and try the next code." });
    if (await saveConfig({ "webserver.api.totp_secret": totp.secret }, setErrors)) {
      setTotp(null);
      await logout(true);
    }
  };
  const disableTotp = async () => {
    if (!(await confirmAction("Turn off two-factor authentication?", "Turn off"))) return;
    if (await saveConfig({ "webserver.api.totp_secret": "" }, setErrors)) await logout(false);
  };
  const makeApp = async () => {
    const r = await run(() => get<{ app: { password: string; hash: string } }>("/auth/app"));
    if (r) setApp(r.app);
  };
  const saveApp = async () => {
    if (app && (await saveConfig({ "webserver.api.app_pwhash": app.hash }, setErrors))) setApp({ ...app, hash: "" });
  };
  const uri = totp
    ? `otpauth://totp/${totp.issuer}:${encodeURIComponent(totp.account)}?secret=${totp.secret}&issuer=${totp.issuer}&algorithm=${totp.algorithm}&digits=${totp.digits}&period=${totp.period}`
    : "";
  return (
    <Card title="Security">
      <form class="form" onSubmit={changePw}>
        <h3>Password</h3>
        <div class="row wrap">
          <Field label="New password" id="s-pw" error={errors["webserver.api.password"]}>
            <input
              id="s-pw"
              type="password"
              autoComplete="new-password"
              value={pw}
              onInput={(e) => setPw((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label="Again" id="s-pw2" error={errors.pw2}>
            <input
              id="s-pw2"
              type="password"
              autoComplete="new-password"
              value={pw2}
              onInput={(e) => setPw2((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Button type="submit" class="align-end">
            {s.state === "open" ? "Set password" : "Change password"}
          </Button>
        </div>
        <small class="muted">Changing it logs out every session. An empty password removes it.</small>
      </form>
      <div class="form">
        <h3>Two-factor authentication</h3>
        {s.totp ? (
          <div class="row">
            <span>On.</span>
            <Button kind="danger" onClick={disableTotp}>
              Turn off
            </Button>
          </div>
        ) : totp ? (
          <form class="totp" onSubmit={confirmTotp}>
            <Qr text={uri} label="QR code for your authenticator app" />
            <div class="stack">
              <p>Scan this with your authenticator app, or enter the secret by hand:</p>
              <code class="secret" data-testid="totp-secret">
                {totp.secret}
              </code>
              <Field label="Code from the app" id="s-totp" error={errors.totp ?? errors["webserver.api.totp_secret"]}>
                <input
                  id="s-totp"
                  inputMode="numeric"
                  maxLength={6}
                  required
                  value={code}
                  onInput={(e) => setCode((e.target as HTMLInputElement).value)}
                />
              </Field>
              <div class="row">
                <Button type="submit" kind="primary">
                  Turn on
                </Button>
                <Button kind="ghost" onClick={() => setTotp(null)}>
                  Cancel
                </Button>
              </div>
            </div>
          </form>
        ) : (
          <Button
            busy={busy}
            disabled={s.state === "open"}
            onClick={enrol}
            title={s.state === "open" ? "Set a password first" : ""}
          >
            Set up two-factor authentication
          </Button>
        )}
      </div>
      <div class="form">
        <h3>App password</h3>
        <p class="muted">For scripts and apps: logs in without 2FA. Making a new one replaces the old one.</p>
        {app ? (
          <div class="stack">
            <code class="secret" data-testid="app-password">
              {app.password}
            </code>
            {app.hash ? (
              <div class="row">
                <Button kind="primary" onClick={saveApp}>
                  Use this app password
                </Button>
                <Button kind="ghost" onClick={() => setApp(null)}>
                  Cancel
                </Button>
              </div>
            ) : (
              <p class="note">Saved. Copy it now: it is not shown again.</p>
            )}
          </div>
        ) : (
          <Button busy={busy} onClick={makeApp}>
            New app password
          </Button>
        )}
      </div>
    </Card>
  );
}

/** RFC 6238 check in the browser before the secret is stored (so a mistyped enrolment cannot lock anyone out) */
async function verify(secretB32: string, code: string, period: number): Promise<boolean> {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secretB32.replace(/=+$/, "").toUpperCase())
    bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const key = new Uint8Array(Math.floor(bits.length / 8)).map((_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
  if (!crypto.subtle) return true; // plain HTTP from another host: the server checks the code at the next login
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const now = Math.floor(Date.now() / 1000 / period);
  for (const step of [now - 1, now, now + 1]) {
    const msg = new DataView(new ArrayBuffer(8));
    msg.setUint32(4, step);
    const h = new Uint8Array(await crypto.subtle.sign("HMAC", k, msg));
    const o = h[19]! & 15;
    const n = (((h[o]! & 127) << 24) | (h[o + 1]! << 16) | (h[o + 2]! << 8) | h[o + 3]!) % 1_000_000;
    if (String(n).padStart(6, "0") === code.trim()) return true;
  }
  return false;
}

function Backup() {
  const [busy, run] = useAction();
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const exportIt = () =>
    run(async () => {
      const res = await request("GET", "/teleporter");
      const name =
        /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "moat-teleporter.zip";
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await res.blob());
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    }, "Backup downloaded");
  const importIt = async (e: Event) => {
    e.preventDefault();
    if (
      !file ||
      !(await confirmAction(
        `Restore ${file.name}? It replaces the lists, domains, groups, clients and settings.`,
        "Restore",
      ))
    )
      return;
    setError(null);
    const form = new FormData();
    form.append("file", file);
    const r = await run(() =>
      api<{ files: string[] }>("POST", "/teleporter", form).catch((err: unknown) => {
        setError(err);
        throw err;
      }),
    );
    if (r) setResult(`Restored: ${r.files.join(", ")}`);
  };
  return (
    <Card title="Backup (Teleporter)">
      <div class="form">
        <p class="muted">
          A zip in Pi-hole's layout: lists, domains, groups, clients, settings and local DNS records. It moves to and
          from Pi-hole v6.
        </p>
        <Button busy={busy} onClick={exportIt}>
          Download backup
        </Button>
      </div>
      <form class="form" onSubmit={importIt}>
        <Field label="Restore from a backup" id="s-import">
          <input
            id="s-import"
            type="file"
            accept=".zip,application/zip"
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          />
        </Field>
        <ErrorNote error={error} />
        {result && (
          <p class="note" data-testid="import-result">
            {result}
          </p>
        )}
        <div class="row">
          <Button type="submit" kind="danger" busy={busy} disabled={!file}>
            Restore
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
      <Maintenance />
      <SystemCard />
    </div>
  );
}
