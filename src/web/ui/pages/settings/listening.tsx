// Who DNS answers and how local names work: dns.listeningMode and dns.interface, DNSSEC, the local
// domain (dns.domain.*) and the options that shape names without a dot (expandHosts, domainNeeded,
// bogusPriv). The modes mean what Pi-hole's do (README "DNS"); each applies without a restart.
import { useState } from "preact/hooks";
import { get } from "../../api.ts";
import { Button, Card, ErrorNote, Loading, TextInput } from "../../components.tsx";
import { usePoll } from "../../poll.ts";
import { saveConfig } from "./save.ts";
import { SettingField } from "./env.tsx";

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
  ["LOCAL", "Local: only devices on this machine's own networks (safe default)"],
  ["ALL", "All: anyone who reaches the port (only behind a firewall)"],
  ["SINGLE", "Single: only on the interface below"],
  ["BIND", "Bind: only on the interface below, bound to its addresses"],
  ["NONE", "None: as All, without Pi-hole's interface settings"],
];

function Check({
  id,
  label,
  checked,
  set,
}: {
  id: string;
  label: string;
  checked: boolean;
  set: (v: boolean) => void;
}) {
  return (
    <label class="check" for={id}>
      <input id={id} type="checkbox" checked={checked} onChange={(e) => set((e.target as HTMLInputElement).checked)} />{" "}
      {label}
    </label>
  );
}

function Form({ cfg, reload }: { cfg: DnsCfg; reload: () => void }) {
  const [mode, setMode] = useState(cfg.listeningMode);
  const [iface, setIface] = useState(cfg.interface);
  const [dnssec, setDnssec] = useState(cfg.dnssec);
  const [domain, setDomain] = useState(cfg.domain.name);
  const [local, setLocal] = useState(cfg.domain.local);
  const [expand, setExpand] = useState(cfg.expandHosts);
  const [needed, setNeeded] = useState(cfg.domainNeeded);
  const [bogus, setBogus] = useState(cfg.bogusPriv);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const ok = await saveConfig(
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
      setErrors,
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
    setBusy(false);
    if (ok) reload();
  };
  const needsIface = mode === "SINGLE" || mode === "BIND";
  return (
    <form class="form" onSubmit={save}>
      <div class="row wrap">
        <SettingField setting="dns.listeningMode" errors={errors} label="Listening mode" id="s-listen">
          <select id="s-listen" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
            {MODES.map(([v, text]) => (
              <option key={v} value={v}>
                {text}
              </option>
            ))}
          </select>
        </SettingField>
        <SettingField
          setting="dns.interface"
          errors={errors}
          label="Interface"
          id="s-iface"
          hint={needsIface ? "e.g. eth0; loopback is always answered" : "used by Single and Bind"}
        >
          <TextInput id="s-iface" value={iface} onValue={setIface} />
        </SettingField>
      </div>
      <p class="muted">Encrypted DNS (DoT, DoH) answers every device that reaches its port, whatever the mode.</p>
      <Check
        id="s-dnssec"
        label="DNSSEC: validate answers (Moat checks the signatures itself; the upstreams must pass DNSSEC records)"
        checked={dnssec}
        set={setDnssec}
      />
      <div class="row wrap">
        <SettingField
          setting="dns.domain.name"
          errors={errors}
          label="Local domain"
          id="s-domain"
          hint="e.g. lan or home.arpa"
        >
          <TextInput id="s-domain" value={domain} onValue={setDomain} />
        </SettingField>
      </div>
      <Check id="s-domlocal" label="Never forward names of the local domain" checked={local} set={setLocal} />
      <Check
        id="s-expand"
        label="Expand hosts: local records answer also as name.<local domain>"
        checked={expand}
        set={setExpand}
      />
      <Check id="s-needed" label="Never forward names without a dot" checked={needed} set={setNeeded} />
      <Check id="s-bogus" label="Never forward reverse lookups of private ranges" checked={bogus} set={setBogus} />
      {Object.entries(errors)
        .filter(([k]) => !["dns.listeningMode", "dns.interface", "dns.domain.name"].includes(k))
        .map(([k, v]) => (
          <p key={k} class="note error">
            {v}
          </p>
        ))}
      <div class="row end">
        <Button type="submit" kind="primary" busy={busy}>
          Save listening and domain
        </Button>
      </div>
    </form>
  );
}

export function ListeningCard() {
  const { data, error, reload } = usePoll(
    () => get<{ config: { dns: DnsCfg } }>("/config/dns").then((r) => r.config.dns),
    0,
  );
  return (
    <Card title="Listening, DNSSEC and local domain">
      <ErrorNote error={error} />
      {data ? <Form cfg={data} reload={reload} /> : !error && <Loading />}
    </Card>
  );
}
