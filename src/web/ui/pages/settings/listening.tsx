// Who DNS answers and how local names work: dns.listeningMode and dns.interface, DNSSEC, the local
// domain (dns.domain.*) and the options that shape names without a dot (expandHosts, domainNeeded,
// bogusPriv). The modes mean what Pi-hole's do (README "DNS"); each applies without a restart.
import { useState } from "preact/hooks";
import { get } from "../../api.ts";
import { Card, ErrorNote, Loading } from "../../components.tsx";
import { Check, FormEnd, Options } from "../../fields.tsx";
import { msg, t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { useSaveConfig } from "./save.ts";
import { SettingField, SettingText } from "./env.tsx";

type DnsCfg = {
  listeningMode: string;
  interface: string;
  dnssec: boolean;
  expandHosts: boolean;
  domainNeeded: boolean;
  bogusPriv: boolean;
  domain: { name: string; local: boolean };
};

const MODES: Array<[string, string]> = [
  ["LOCAL", msg("Local: only devices on this machine's own networks (safe default)")],
  ["ALL", msg("All: anyone who reaches the port (only behind a firewall)")],
  ["SINGLE", msg("Single: only on the interface below")],
  ["BIND", msg("Bind: only on the interface below, bound to its addresses")],
  ["NONE", msg("None: as All, without Pi-hole's interface settings")],
];

function Form({ cfg, reload }: { cfg: DnsCfg; reload: () => void }) {
  const [mode, setMode] = useState(cfg.listeningMode);
  const [iface, setIface] = useState(cfg.interface);
  const [dnssec, setDnssec] = useState(cfg.dnssec);
  const [domain, setDomain] = useState(cfg.domain.name);
  const [local, setLocal] = useState(cfg.domain.local);
  const [expand, setExpand] = useState(cfg.expandHosts);
  const [needed, setNeeded] = useState(cfg.domainNeeded);
  const [bogus, setBogus] = useState(cfg.bogusPriv);
  const { errors, busy, save: saveValues } = useSaveConfig(reload);
  const save = (e: Event) => {
    e.preventDefault();
    void saveValues(
      {
        "dns.listeningMode": mode,
        "dns.interface": iface.trim(),
        "dns.dnssec": dnssec,
        "dns.domain.name": domain.trim(),
        "dns.domain.local": local,
        "dns.expandHosts": expand,
        "dns.domainNeeded": needed,
        "dns.bogusPriv": bogus,
      },
      {
        "dns.listeningMode": cfg.listeningMode,
        "dns.interface": cfg.interface,
        "dns.dnssec": cfg.dnssec,
        "dns.domain.name": cfg.domain.name,
        "dns.domain.local": cfg.domain.local,
        "dns.expandHosts": cfg.expandHosts,
        "dns.domainNeeded": cfg.domainNeeded,
        "dns.bogusPriv": cfg.bogusPriv,
      },
    );
  };
  const needsIface = mode === "SINGLE" || mode === "BIND";
  return (
    <form class="form" onSubmit={save}>
      <div class="row wrap">
        <SettingField setting="dns.listeningMode" errors={errors} label={t("Listening mode")} id="s-listen">
          <select id="s-listen" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
            <Options choices={MODES} />
          </select>
        </SettingField>
        <SettingText
          setting="dns.interface"
          errors={errors}
          label={t("Interface")}
          id="s-iface"
          hint={needsIface ? t("e.g. eth0; loopback is always answered") : t("used by Single and Bind")}
          value={iface}
          onValue={setIface}
        />
      </div>
      <p class="muted">
        {t("Encrypted DNS (DoT, DoH) answers every device that reaches its port, whatever the mode.")}
      </p>
      <Check
        id="s-dnssec"
        label={t(
          "DNSSEC: validate answers (Moat checks the signatures itself; the upstreams must pass DNSSEC records)",
        )}
        checked={dnssec}
        set={setDnssec}
      />
      <div class="row wrap">
        <SettingText
          setting="dns.domain.name"
          errors={errors}
          label={t("Local domain")}
          id="s-domain"
          hint={t("e.g. lan or home.arpa")}
          value={domain}
          onValue={setDomain}
        />
      </div>
      <Check id="s-domlocal" label={t("Never forward names of the local domain")} checked={local} set={setLocal} />
      <Check
        id="s-expand"
        label={t("Expand hosts: local records answer also as name.<local domain>")}
        checked={expand}
        set={setExpand}
      />
      <Check id="s-needed" label={t("Never forward names without a dot")} checked={needed} set={setNeeded} />
      <Check id="s-bogus" label={t("Never forward reverse lookups of private ranges")} checked={bogus} set={setBogus} />
      {Object.entries(errors)
        .filter(([k]) => !["dns.listeningMode", "dns.interface", "dns.domain.name"].includes(k))
        .map(([k, v]) => (
          <p key={k} class="note error">
            {v}
          </p>
        ))}
      <FormEnd busy={busy} label={t("Save listening and domain")} />
    </form>
  );
}

export function ListeningCard() {
  const { data, error, reload } = usePoll(
    () => get<{ config: { dns: DnsCfg } }>("/config/dns").then((r) => r.config.dns),
    0,
  );
  return (
    <Card title={t("Listening, DNSSEC and local domain")}>
      <ErrorNote error={error} />
      {data ? <Form cfg={data} reload={reload} /> : !error && <Loading />}
    </Card>
  );
}
