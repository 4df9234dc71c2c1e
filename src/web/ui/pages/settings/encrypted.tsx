// Encrypted DNS as a device sees it: whether DoT (dns.tls.port) and DoH (webserver.port entries
// ending in s) are on, the certificate in force and when it ends (GET /api/tls), a new one
// (POST /api/action/tls/regenerate), Moat's authority to install (/tls/ca.crt, also as a QR code for
// a phone's camera), and per client ID the DoT name and DoH URL (src/tls/store.ts
// clientIdFromServerName, src/dns/doh-serve.ts) with an Apple profile (GET /api/tls/mobileconfig).
import { useState } from "preact/hooks";
import { api, get, request } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, Loading, useAction, TextInput } from "../../components.tsx";
import { usePoll } from "../../poll.ts";
import { Qr } from "../../qr.tsx";
import { saveConfig } from "./save.ts";
import { SettingField } from "./env.tsx";

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
  const [dot, setDot] = useState(String(info.dot.port));
  const [web, setWeb] = useState(webPorts);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const before = { "dns.tls.port": info.dot.port, "webserver.port": webPorts };
    if (await saveConfig({ "dns.tls.port": Number(dot), "webserver.port": web.trim() }, setErrors, before)) reload();
    setBusy(false);
  };
  return (
    <form class="form" onSubmit={save}>
      <p data-testid="enc-state">
        DNS over TLS:{" "}
        {info.dot.port ? <span class="badge ok">on, port {info.dot.port}</span> : <span class="badge">off</span>} · DNS
        over HTTPS:{" "}
        {info.doh.ports.length ? (
          <span class="badge ok">on, port {info.doh.ports.join(", ")}</span>
        ) : (
          <span class="badge">off</span>
        )}
      </p>
      <div class="row wrap">
        <SettingField
          setting="dns.tls.port"
          errors={errors}
          label="DoT port"
          id="s-dotport"
          hint="853; 0 turns DoT off"
        >
          <TextInput id="s-dotport" type="number" value={dot} onValue={setDot} />
        </SettingField>
        <SettingField
          setting="webserver.port"
          errors={errors}
          label="Web ports"
          id="s-webport"
          hint="an entry ending in s serves HTTPS and DoH, e.g. 80,443s (applies after a restart)"
        >
          <TextInput id="s-webport" value={web} onValue={setWeb} />
        </SettingField>
      </div>
      {errors.form && <p class="note error">{errors.form}</p>}
      <div class="row end">
        <Button type="submit" busy={busy}>
          Save ports
        </Button>
      </div>
    </form>
  );
}

function Certificate({ info, reload }: { info: TlsInfo; reload: () => void }) {
  const [busy, run] = useAction();
  const c = info.certificate;
  const days = Math.floor((Date.parse(c.notAfter) - Date.now()) / 86_400_000);
  const regenerate = async () => {
    if (!(await confirmAction("Make a new certificate? HTTPS and DoT switch to it at once.", "Regenerate"))) return;
    if (await run(() => api("POST", "/action/tls/regenerate"), "New certificate in force")) reload();
  };
  const caUrl = `${location.origin}/tls/ca.crt`;
  return (
    <div class="form">
      <h3>Certificate</h3>
      <dl class="facts" data-testid="certificate">
        <dt>Names</dt>
        <dd class="wrap-anywhere">{c.names.join(", ")}</dd>
        <dt>Valid until</dt>
        <dd data-testid="cert-expiry">
          {new Date(c.notAfter).toLocaleString()} ({days} days left)
        </dd>
        <dt>SHA-256</dt>
        <dd class="wrap-anywhere" data-testid="cert-fingerprint">
          <code>{c.fingerprint}</code>
        </dd>
        <dt>Issued by</dt>
        <dd>{c.user ? "your own certificate (webserver.tls.cert)" : "Moat's own authority, renewed by itself"}</dd>
      </dl>
      <div class="row wrap">
        <Button busy={busy} onClick={regenerate}>
          Regenerate
        </Button>
      </div>
      {!c.user && <h3>Moat's certificate authority</h3>}
      {!c.user && (
        <div class="enc-qr">
          <Qr text={caUrl} label="QR code of the authority's download address" />
          <div class="stack">
            <p>
              Devices trust Moat's HTTPS and DoT once they trust its authority. Scan the code with the phone, or
              download it here:
            </p>
            <a class="btn" href="/tls/ca.crt" download="moat-ca.crt">
              Download the authority (moat-ca.crt)
            </a>
          </div>
        </div>
      )}
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
    run(() => download(`/tls/mobileconfig?proto=${proto}${cid && !bad ? `&client=${cid}` : ""}`), "Profile downloaded");
  return (
    <div class="form">
      <h3>Set up a device</h3>
      <Field
        label="Client ID"
        id="s-cid"
        error={
          bad ? (info.clientIds ? "letters, digits and hyphens, up to 64" : "the certificate has no *.name") : null
        }
        hint="optional: the client entry of that name (and its groups) applies to the device"
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
          <div class="stack">
            <strong>DNS over TLS (Android "Private DNS")</strong>
            <code data-testid="dot-name">{dotName}</code>
            {info.dot.port !== 853 && <small class="muted">port {info.dot.port}: most devices only use 853</small>}
            <Qr text={dotName} label="QR code of the DoT name" />
            <Button busy={busy} onClick={() => profile("dot")}>
              Apple profile (DoT)
            </Button>
          </div>
        )}
        {dohUrl && (
          <div class="stack">
            <strong>DNS over HTTPS (browsers, Apple)</strong>
            <code class="wrap-anywhere" data-testid="doh-url">
              {dohUrl}
            </code>
            <Qr text={dohUrl} label="QR code of the DoH address" />
            <Button busy={busy} onClick={() => profile("doh")}>
              Apple profile (DoH)
            </Button>
          </div>
        )}
        {!dohUrl && info.dot.port === 0 && <p class="muted">Turn on DoT or DoH above first.</p>}
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
    <Card title="Encrypted DNS">
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
