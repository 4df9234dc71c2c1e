// Encrypted DNS as a device sees it: whether DoT (dns.tls.port) and DoH (webserver.port entries
// ending in s) are on, the certificate in force and when it ends (GET /api/tls), a new one
// (POST /api/action/tls/regenerate), Moat's authority to install (/tls/ca.crt, also as a QR code for
// a phone's camera), and per client ID the DoT name and DoH URL (src/tls/store.ts
// clientIdFromServerName, src/dns/doh-serve.ts) with an Apple profile (GET /api/tls/mobileconfig).
import { useState } from "preact/hooks";
import { api, get, request } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, Loading, useAction, TextInput } from "../../components.tsx";
import { intlLocale, plural, t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { Qr } from "../../qr.tsx";
import { SettingsForm, SettingText, useSettingsForm } from "./form.tsx";

type TlsInfo = {
  certificate: { names: string[]; notAfter: string; fingerprint: string; user: boolean };
  dot: { port: number };
  doh: { ports: number[] };
  name: string | null;
  clientIds: boolean;
};

const ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Saves the file the API sends for `path` under the name its Content-Disposition gives. */
export async function download(path: string): Promise<void> {
  const res = await request("GET", path);
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "download";
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await res.blob());
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function Ports({ info, webPorts, reload }: { info: TlsInfo; webPorts: string; reload: () => void }) {
  const form = useSettingsForm({ "dns.tls.port": info.dot.port, "webserver.port": webPorts }, reload);
  const on = (ports: string) => <span class="badge ok">{t("on, port {ports}", { ports })}</span>;
  const off = <span class="badge">{t("off")}</span>;
  return (
    <SettingsForm form={form} label={t("Save ports")} kind="">
      <p data-testid="enc-state">
        {t("DNS over TLS:")} {info.dot.port ? on(String(info.dot.port)) : off} · {t("DNS over HTTPS:")}{" "}
        {info.doh.ports.length ? on(info.doh.ports.join(", ")) : off}
      </p>
      <div class="row wrap">
        <SettingText setting="dns.tls.port" label={t("DoT port")} id="s-dotport" hint={t("853; 0 turns DoT off")} />
        <SettingText
          setting="webserver.port"
          label={t("Web ports")}
          id="s-webport"
          hint={t("an entry ending in s serves HTTPS and DoH, e.g. {example} (applies after a restart)", {
            example: "80,443s",
          })}
        />
      </div>
    </SettingsForm>
  );
}

function Certificate({ info, reload }: { info: TlsInfo; reload: () => void }) {
  const [busy, run] = useAction();
  const c = info.certificate;
  const days = Math.floor((Date.parse(c.notAfter) - Date.now()) / 86_400_000);
  const regenerate = async () => {
    if (!(await confirmAction(t("Make a new certificate? HTTPS and DoT switch to it at once."), t("Regenerate"))))
      return;
    if (await run(() => api("POST", "/action/tls/regenerate"), t("New certificate in force"))) reload();
  };
  const caUrl = `${location.origin}/tls/ca.crt`;
  return (
    <div class="form">
      <h3>{t("Certificate")}</h3>
      <dl class="facts" data-testid="certificate">
        <dt>{t("Names")}</dt>
        <dd class="wrap-anywhere" data-raw>
          {c.names.join(", ")}
        </dd>
        <dt>{t("Valid until")}</dt>
        <dd data-testid="cert-expiry">
          {new Date(c.notAfter).toLocaleString(intlLocale())} (
          {plural(days, { one: "{count} day left", other: "{count} days left" })})
        </dd>
        <dt>SHA-256</dt>
        <dd class="wrap-anywhere" data-testid="cert-fingerprint">
          <code>{c.fingerprint}</code>
        </dd>
        <dt>{t("Issued by")}</dt>
        <dd>
          {c.user
            ? t("your own certificate ({key})", { key: "webserver.tls.cert" })
            : t("Moat's own authority, renewed by itself")}
        </dd>
      </dl>
      <div class="row wrap">
        <Button busy={busy} onClick={regenerate}>
          {t("Regenerate")}
        </Button>
      </div>
      {!c.user && <h3>{t("Moat's certificate authority")}</h3>}
      {!c.user && (
        <div class="enc-qr">
          <Qr text={caUrl} label={t("QR code of the authority's download address")} />
          <div class="stack">
            <p>
              {t(
                "Devices trust Moat's HTTPS and DoT once they trust its authority. Scan the code with the phone, or download it here:",
              )}
            </p>
            <a class="btn" href="/tls/ca.crt" download="moat-ca.crt">
              {t("Download the authority ({file})", { file: "moat-ca.crt" })}
            </a>
          </div>
        </div>
      )}
    </div>
  );
}

/** how a device reaches Moat by one protocol: the name or address to type, its QR code, the Apple profile */
function Protocol({
  title,
  value,
  testId,
  note,
  qrLabel,
  profileLabel,
  busy,
  onProfile,
}: {
  title: string;
  value: string;
  testId: string;
  note?: string | false;
  qrLabel: string;
  profileLabel: string;
  busy: boolean;
  onProfile: () => void;
}) {
  return (
    <div class="stack">
      <strong>{title}</strong>
      <code class="wrap-anywhere" data-testid={testId}>
        {value}
      </code>
      {note && <small class="muted">{note}</small>}
      <Qr text={value} label={qrLabel} />
      <Button busy={busy} onClick={onProfile}>
        {profileLabel}
      </Button>
    </div>
  );
}

function ClientSetup({ info }: { info: TlsInfo }) {
  const [id, setId] = useState("");
  const [busy, run] = useAction();
  const { data: clients } = usePoll(
    () =>
      get<{ clients: Array<{ client: string }> }>("/clients").then((r) =>
        r.clients.map((c) => c.client.toLowerCase()).filter((c) => ID.test(c)),
      ),
    0,
  );
  const cid = id.trim().toLowerCase();
  const bad = cid !== "" && (!ID.test(cid) || !info.clientIds);
  if (!info.name) return null;
  const dotName = cid && !bad ? `${cid}.${info.name}` : info.name;
  const hp = info.doh.ports[0];
  const dohUrl =
    hp === undefined
      ? null
      : `https://${info.name}${hp === 443 ? "" : `:${hp}`}/dns-query${cid && !bad ? `/${cid}` : ""}`;
  const profile = (proto: "doh" | "dot") =>
    run(
      () => download(`/tls/mobileconfig?proto=${proto}${cid && !bad ? `&client=${cid}` : ""}`),
      t("Profile downloaded"),
    );
  return (
    <div class="form">
      <h3>{t("Set up a device")}</h3>
      <Field
        label={t("Client ID")}
        id="s-cid"
        error={
          bad
            ? info.clientIds
              ? t("letters, digits and hyphens, up to 64")
              : t("the certificate has no {wildcard}", { wildcard: "*.name" })
            : null
        }
        hint={t("optional: the client entry of that name (and its groups) applies to the device")}
      >
        <TextInput id="s-cid" list="s-cid-list" value={id} onValue={setId} />
      </Field>
      <datalist id="s-cid-list">
        {(clients ?? []).map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      <div class="enc-devices">
        {info.dot.port > 0 && (
          <Protocol
            title={t('DNS over TLS (Android "Private DNS")')}
            value={dotName}
            testId="dot-name"
            note={info.dot.port !== 853 && t("port {port}: most devices only use 853", { port: String(info.dot.port) })}
            qrLabel={t("QR code of the DoT name")}
            profileLabel={t("Apple profile (DoT)")}
            busy={busy}
            onProfile={() => profile("dot")}
          />
        )}
        {dohUrl && (
          <Protocol
            title={t("DNS over HTTPS (browsers, Apple)")}
            value={dohUrl}
            testId="doh-url"
            qrLabel={t("QR code of the DoH address")}
            profileLabel={t("Apple profile (DoH)")}
            busy={busy}
            onProfile={() => profile("doh")}
          />
        )}
        {!dohUrl && info.dot.port === 0 && <p class="muted">{t("Turn on DoT or DoH above first.")}</p>}
      </div>
    </div>
  );
}

export function EncryptedDnsCard() {
  const { data, error, reload } = usePoll(
    () =>
      Promise.all([
        get<{ tls: TlsInfo }>("/tls"),
        get<{ config: { webserver: { port: string } } }>("/config/webserver/port"),
      ]).then(([t, c]) => ({ info: t.tls, web: c.config.webserver.port })),
    0,
  );
  return (
    <Card title={t("Encrypted DNS")}>
      <ErrorNote error={error} />
      {data ? (
        <>
          <Ports info={data.info} webPorts={data.web} reload={reload} />
          <Certificate info={data.info} reload={reload} />
          <ClientSetup info={data.info} />
        </>
      ) : (
        !error && <Loading />
      )}
    </Card>
  );
}
