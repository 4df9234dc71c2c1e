// Who DNS answers and how local names work: dns.listeningMode and dns.interface, DNSSEC, the local
// domain (dns.domain.*) and the options that shape names without a dot (expandHosts, domainNeeded,
// bogusPriv). The modes mean what Pi-hole's do (README "DNS"); each applies without a restart.
import { Options } from "../../fields.tsx";
import { msg, t } from "../../i18n.ts";
import { ConfigCard, SettingCheck, SettingSelect, SettingsForm, SettingText, useSettingsForm } from "./form.tsx";

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
  const form = useSettingsForm(
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
    reload,
  );
  const mode = form.text("dns.listeningMode");
  const needsIface = mode === "SINGLE" || mode === "BIND";
  return (
    <SettingsForm form={form} label={t("Save listening and domain")}>
      <div class="row wrap">
        <SettingSelect setting="dns.listeningMode" label={t("Listening mode")} id="s-listen">
          <Options choices={MODES} />
        </SettingSelect>
        <SettingText
          setting="dns.interface"
          label={t("Interface")}
          id="s-iface"
          hint={needsIface ? t("e.g. eth0; loopback is always answered") : t("used by Single and Bind")}
        />
      </div>
      <p class="muted">
        {t("Encrypted DNS (DoT, DoH) answers every device that reaches its port, whatever the mode.")}
      </p>
      <SettingCheck
        setting="dns.dnssec"
        id="s-dnssec"
        check={t(
          "DNSSEC: validate answers (Moat checks the signatures itself; the upstreams must pass DNSSEC records)",
        )}
      />
      <div class="row wrap">
        <SettingText
          setting="dns.domain.name"
          label={t("Local domain")}
          id="s-domain"
          hint={t("e.g. lan or home.arpa")}
        />
      </div>
      <SettingCheck setting="dns.domain.local" id="s-domlocal" check={t("Never forward names of the local domain")} />
      <SettingCheck
        setting="dns.expandHosts"
        id="s-expand"
        check={t("Expand hosts: local records answer also as name.<local domain>")}
      />
      <SettingCheck setting="dns.domainNeeded" id="s-needed" check={t("Never forward names without a dot")} />
      <SettingCheck setting="dns.bogusPriv" id="s-bogus" check={t("Never forward reverse lookups of private ranges")} />
      {Object.entries(form.errors)
        // the switches have no field of their own: their errors show here, above the form's own
        .filter(([k]) => !["dns.listeningMode", "dns.interface", "dns.domain.name", "form"].includes(k))
        .map(([k, v]) => (
          <p key={k} class="note error">
            {v}
          </p>
        ))}
    </SettingsForm>
  );
}

export function ListeningCard() {
  return (
    <ConfigCard title={t("Listening, DNSSEC and local domain")} path="/config/dns" pick={(c: { dns: DnsCfg }) => c.dns}>
      {(cfg, reload) => <Form cfg={cfg} reload={reload} />}
    </ConfigCard>
  );
}
