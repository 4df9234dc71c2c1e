// The setup guide: how to point each kind of device at Moat, with Moat's own addresses (GET /api/tls:
// this machine's addresses, the DoT name, the DoH port; GET /api/config/dns/port), and the live check
// (guide-check.tsx). The first-run setup shows `GuideStep`, the addresses and the check only.
import type { ComponentChildren } from "preact";
import { get } from "../api.ts";
import { Button, Card, ErrorNote, Loading, useAction } from "../components.tsx";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { Qr } from "../qr.tsx";
import { linkProps } from "../router.ts";
import { LiveCheck } from "./guide-check.tsx";
import { download } from "./settings/encrypted.tsx";

type Where = {
  v4: string[];
  v6: string[];
  port: number;
  /** the DoT name, when DoT is on and the certificate names a host */
  dot: string | null;
  dotPort: number;
  doh: string | null;
};

function load(): Promise<Where> {
  return Promise.all([
    get<{
      tls: { addresses: string[]; name: string | null; dot: { port: number }; doh: { ports: number[] } };
    }>("/tls"),
    get<{ config: { dns: { port: number } } }>("/config/dns/port"),
  ]).then(([{ tls }, c]) => {
    const v4 = tls.addresses.filter((a) => !a.includes(":"));
    const v6 = tls.addresses.filter((a) => a.includes(":"));
    // a Moat with no address but loopback (a container's own network) is reached as the page is
    if (v4.length + v6.length === 0) (location.hostname.includes(":") ? v6 : v4).push(location.hostname);
    const hp = tls.doh.ports[0];
    return {
      v4,
      v6,
      port: c.config.dns.port,
      dot: tls.dot.port > 0 ? tls.name : null,
      dotPort: tls.dot.port,
      doh: hp === undefined || !tls.name ? null : `https://${tls.name}${hp === 443 ? "" : `:${hp}`}/dns-query`,
    };
  });
}

const first = (w: Where) => w.v4[0] ?? w.v6[0] ?? "";
/** systemd-resolved's address[:port] form (resolved.conf(5), DNS=) */
const dotServer = (ip: string, port: number) =>
  port === 853 ? ip : ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;

function Cmd({ children }: { children: string }) {
  return (
    <pre class="guide-cmd" data-raw>
      <code>{children}</code>
    </pre>
  );
}

function Addresses({ w }: { w: Where }) {
  return (
    <div class="guide-where">
      <dl class="facts" data-testid="guide-addresses">
        <dt>{t("IPv4 address")}</dt>
        <dd data-testid="guide-v4">{w.v4.join(", ") || "–"}</dd>
        <dt>{t("IPv6 address")}</dt>
        <dd class="wrap-anywhere" data-testid="guide-v6">
          {w.v6.join(", ") || "–"}
        </dd>
        <dt>{t("DNS over TLS name")}</dt>
        <dd class="wrap-anywhere" data-testid="guide-dot">
          {w.dot ?? t("off")}
        </dd>
        <dt>{t("DNS over HTTPS address")}</dt>
        <dd class="wrap-anywhere" data-testid="guide-doh">
          {w.doh ?? t("off")}
        </dd>
      </dl>
      {w.port !== 53 && (
        <p class="note" data-testid="guide-port">
          {t("Moat answers DNS on port {port}, but devices only ask port 53: set dns.port to 53 first.", {
            port: String(w.port),
          })}
        </p>
      )}
    </div>
  );
}

/** The first-run setup's step number `step`: where Moat is, and whether this device uses it already. */
export function GuideStep({ step }: { step: number }) {
  const { data, error } = usePoll(load, 0);
  return (
    <fieldset class="guide-step">
      <legend>{t("{step}. Point your devices at Moat", { step })}</legend>
      <p class="muted">
        {t(
          "Set Moat as the DNS server of your router or of each device. The Setup guide page in the menu says how, device by device.",
        )}
      </p>
      <ErrorNote error={error} />
      {data ? (
        <div class="stack">
          <Addresses w={data} />
          <LiveCheck doh={data.doh} />
        </div>
      ) : (
        !error && <Loading />
      )}
    </fieldset>
  );
}

function Section({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <Card title={title} class={`guide-os guide-${id}`}>
      {children}
    </Card>
  );
}

/** Apple devices ask DoT on port 853 only */
const appleDot = (w: Where) => w.dot !== null && w.dotPort === 853;
const canProfile = (w: Where) => w.doh !== null || appleDot(w);

function Profile({ w }: { w: Where }) {
  const [busy, run] = useAction();
  const profile = (proto: "doh" | "dot") =>
    run(() => download(`/tls/mobileconfig?proto=${proto}`), t("Profile downloaded"));
  return (
    <div class="row wrap">
      {w.doh && (
        <Button busy={busy} onClick={() => profile("doh")}>
          {t("Profile (DNS over HTTPS)")}
        </Button>
      )}
      {appleDot(w) && (
        <Button busy={busy} onClick={() => profile("dot")}>
          {t("Profile (DNS over TLS)")}
        </Button>
      )}
    </div>
  );
}

function Guides({ w }: { w: Where }) {
  const ip = first(w);
  const v6 = w.v6[0];
  return (
    <>
      <Section title={t("Router (every device at once)")} id="router">
        <ol>
          <li>{t("Open your router's settings page (its address is often printed on the router).")}</li>
          <li>{t("Under DHCP or LAN, set the DNS server handed to devices to {address}.", { address: ip })}</li>
          <li>{t("Leave the second DNS server empty: a server other than Moat lets ads through.")}</li>
          <li>{t("Reconnect the devices (or wait until they renew their address) to pick up the change.")}</li>
        </ol>
        <p>
          {t("A router that cannot change its DNS server: turn its DHCP server off and let Moat hand out addresses.")}{" "}
          <a {...linkProps("/dhcp")}>{t("Moat's DHCP server")}</a>
        </p>
      </Section>
      <Section title={t("Windows")} id="windows">
        <ol>
          <li>
            {t(
              "Settings › Network & internet › Wi-Fi or Ethernet › Hardware properties › DNS server assignment › Edit.",
            )}
          </li>
          <li>{t("Choose Manual, turn IPv4 on and enter {address} as Preferred DNS; save.", { address: ip })}</li>
        </ol>
        <p>{t("Or in PowerShell as administrator:")}</p>
        <Cmd>{`Set-DnsClientServerAddress -InterfaceAlias "Wi-Fi" -ServerAddresses ${[ip, ...(v6 ? [v6] : [])].join(",")}`}</Cmd>
      </Section>
      <Section title={t("macOS")} id="macos">
        <ol>
          <li>{t("System Settings › Network › Wi-Fi (or Ethernet) › Details… › DNS.")}</li>
          <li>{t("Remove the servers listed, add {address} with +, then OK.", { address: ip })}</li>
        </ol>
        <p>{t("Or in Terminal:")}</p>
        <Cmd>{`networksetup -setdnsservers Wi-Fi ${ip}`}</Cmd>
        {canProfile(w) && (
          <>
            <p>
              {t(
                "Or install Moat's profile for encrypted DNS, then open System Settings › General › Device Management:",
              )}
            </p>
            <Profile w={w} />
          </>
        )}
      </Section>
      <Section title={t("Android")} id="android">
        {w.dot ? (
          <>
            <ol>
              <li>{t("Settings › Network & internet › Private DNS.")}</li>
              <li>{t("Choose Private DNS provider hostname and enter {name}; save.", { name: w.dot })}</li>
            </ol>
            <p class="muted">
              {t(
                "Android checks the certificate of that name: install Moat's authority first (Settings › Encrypted DNS). Some versions accept only a certificate from a public authority (webserver.tls.cert).",
              )}
            </p>
            {w.dotPort !== 853 && <p class="note">{t("Android asks port 853 only: set dns.tls.port to 853.")}</p>}
            <div class="enc-qr">
              <Qr text={w.dot} label={t("QR code of the DNS over TLS name")} />
              <p class="muted">{t("Scan it with the phone to copy the name.")}</p>
            </div>
          </>
        ) : (
          <p>
            {t(
              "Private DNS needs DNS over TLS, which is off (Settings › Encrypted DNS). Meanwhile: Settings › Wi-Fi › the network › Edit › IP settings: Static, DNS 1: {address}.",
              { address: ip },
            )}
          </p>
        )}
      </Section>
      <Section title={t("iOS / iPadOS")} id="ios">
        {canProfile(w) && (
          <>
            <ol>
              <li>{t("Download Moat's profile on the iPhone or iPad (this page, opened there):")}</li>
            </ol>
            <Profile w={w} />
            <ol start={2}>
              <li>{t("Settings › General › VPN & Device Management: install the downloaded profile.")}</li>
            </ol>
          </>
        )}
        <p>
          {t(
            "Or without a profile: Settings › Wi-Fi › (i) beside the network › Configure DNS › Manual, add {address}.",
            { address: ip },
          )}
        </p>
        <div class="enc-qr">
          <Qr text={`${location.origin}/admin/guide`} label={t("QR code of this page's address")} />
          <p class="muted">{t("Scan it with the iPhone's camera to open this page there.")}</p>
        </div>
      </Section>
      <Section title={t("Linux")} id="linux">
        <h3>{t("systemd-resolved")}</h3>
        <Cmd>{`sudo mkdir -p /etc/systemd/resolved.conf.d
printf '[Resolve]\\nDNS=${[ip, ...(v6 ? [v6] : [])].join(" ")}\\nDomains=~.\\n' | sudo tee /etc/systemd/resolved.conf.d/moat.conf
sudo systemctl restart systemd-resolved
resolvectl status`}</Cmd>
        {w.dot && (
          <>
            <p>{t("Encrypted, once the device trusts Moat's certificate authority:")}</p>
            <Cmd>{`printf '[Resolve]\\nDNS=${dotServer(ip, w.dotPort)}#${w.dot}\\nDNSOverTLS=yes\\nDomains=~.\\n' | sudo tee /etc/systemd/resolved.conf.d/moat.conf`}</Cmd>
          </>
        )}
        <h3>{t("NetworkManager")}</h3>
        <p>{t("Replace CONNECTION with the name the first command shows:")}</p>
        <Cmd>{`nmcli -g NAME connection show --active
nmcli connection modify CONNECTION ipv4.dns ${w.v4[0] ?? ip} ipv4.ignore-auto-dns yes${v6 ? ` ipv6.dns ${v6} ipv6.ignore-auto-dns yes` : ""}
nmcli connection up CONNECTION`}</Cmd>
      </Section>
    </>
  );
}

export function Guide() {
  const { data, error } = usePoll(load, 0);
  return (
    <div class="stack guide">
      <Card title={t("Is this device using Moat?")}>{data ? <LiveCheck doh={data.doh} /> : !error && <Loading />}</Card>
      <Card title={t("Moat's addresses")}>
        <ErrorNote error={error} />
        {data ? <Addresses w={data} /> : !error && <Loading />}
      </Card>
      {data && <Guides w={data} />}
    </div>
  );
}
