// DHCP: the server's settings (dhcp.* and the local domain), the static leases (dhcp.hosts) and
// the live leases. Moat looks for another DHCP server each time its own starts (src/dhcp/detect.ts
// raises a message); what it found last is shown here before the switch is turned on, because two
// DHCP servers on one network hand out conflicting addresses.
import { useState } from "preact/hooks";
import { ApiError, get } from "../api.ts";
import { Card, confirmAction, ErrorNote, Field, Loading, Toggle } from "../components.tsx";
import { Check, FormEnd } from "../fields.tsx";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { HOSTNAME, ipNum, isIPv4, LEASE_TIME, saveDhcp } from "./dhcp-common.ts";
import { Leases, Reservations } from "./dhcp-leases.tsx";
import {
  type Detected,
  describeCheck,
  detectServers,
  lastFound,
  type Message,
  newestRival,
  RivalNote,
} from "./dhcp-rival.tsx";

type DhcpCfg = {
  dhcp: {
    active: boolean;
    start: string;
    end: string;
    router: string;
    netmask: string;
    leaseTime: string;
    ipv6: boolean;
    rapidCommit: boolean;
    hosts: string[];
  };
  dns: { domain: { name: string } };
};

/** the checks src/config/schema.ts and src/dhcp/settings.ts make, so a mistake shows before the round trip */
function validate(v: Record<string, string>, active: boolean): Record<string, string> {
  const e: Record<string, string> = {};
  for (const k of ["dhcp.start", "dhcp.end", "dhcp.router"])
    if (v[k] && !isIPv4(v[k]!)) e[k] = t("not a valid IPv4 address");
  if (active && !v["dhcp.start"]) e["dhcp.start"] = t("needed to serve DHCP");
  if (active && !v["dhcp.end"]) e["dhcp.end"] = t("needed to serve DHCP");
  if (!e["dhcp.start"] && !e["dhcp.end"] && v["dhcp.start"] && v["dhcp.end"])
    if (ipNum(v["dhcp.end"]!) < ipNum(v["dhcp.start"]!)) e["dhcp.end"] = t("the range ends before it starts");
  if (v["dhcp.leaseTime"] && !LEASE_TIME.test(v["dhcp.leaseTime"]!))
    e["dhcp.leaseTime"] = t("a number of seconds, or with m, h, d, w (45m, 12h, 2d), or infinite");
  if (v["dns.domain.name"] && !HOSTNAME.test(v["dns.domain.name"]!)) e["dns.domain.name"] = t("not a valid domain");
  return e;
}

function ServerSettings({ cfg, reload, rival }: { cfg: DhcpCfg; reload: () => void; rival: Message | undefined }) {
  const d = cfg.dhcp;
  const [active, setActive] = useState(d.active);
  const [v, setV] = useState<Record<string, string>>({
    "dhcp.start": d.start,
    "dhcp.end": d.end,
    "dhcp.router": d.router,
    "dhcp.netmask": d.netmask,
    "dhcp.leaseTime": d.leaseTime,
    "dns.domain.name": cfg.dns.domain.name,
  });
  const [ipv6, setIpv6] = useState(d.ipv6);
  const [rapid, setRapid] = useState(d.rapidCommit);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const turningOn = active && !d.active;
  const [checked, setChecked] = useState<Detected | null>(null);
  const [checking, setChecking] = useState(false);
  const check = async (): Promise<Detected | null> => {
    setChecking(true);
    try {
      const r = await detectServers(v["dhcp.start"]!, v["dhcp.end"]!);
      setChecked(r);
      return r;
    } catch (e) {
      setErrors({ form: e instanceof ApiError ? e.text : String(e) });
      return null;
    } finally {
      setChecking(false);
    }
  };
  const text = (key: string, label: string, hint: string, placeholder = "") => (
    <Field label={label} id={`d-${key}`} error={errors[key]} hint={hint}>
      <input
        id={`d-${key}`}
        value={v[key]}
        placeholder={placeholder}
        onInput={(e) => setV({ ...v, [key]: (e.target as HTMLInputElement).value.trim() })}
      />
    </Field>
  );
  const save = async (e: Event) => {
    e.preventDefault();
    const invalid = validate(v, active);
    if (Object.keys(invalid).length) return setErrors(invalid);
    if (turningOn) {
      // ask now, for the range about to be served; a finding (or no way to ask) needs a yes
      const found = await check();
      const worry = found ? found.servers.length > 0 || found.problem !== null : !!rival;
      if (
        worry &&
        !(await confirmAction(
          [
            found && describeCheck(found),
            // an earlier finding matters when this check could not ask
            (!found || found.problem) && rival && lastFound(rival),
            t("Turn Moat's DHCP server on anyway?"),
          ]
            .filter(Boolean)
            .join(" "),
          t("Turn on DHCP"),
        ))
      )
        return;
    }
    setBusy(true);
    const ok = await saveDhcp({ ...v, "dhcp.active": active, "dhcp.ipv6": ipv6, "dhcp.rapidCommit": rapid }, setErrors);
    setBusy(false);
    if (ok) reload();
  };
  return (
    <Card title={t("DHCP server")}>
      <form class="form" onSubmit={save} data-testid="dhcp-settings">
        <div class="row">
          <Toggle id="d-active" checked={active} onChange={setActive} label={t("DHCP server")} />
          <label for="d-active">{active ? t("On: Moat hands out addresses") : t("Off")}</label>
        </div>
        <RivalNote
          rival={rival}
          turningOn={turningOn}
          checked={checked}
          checking={checking}
          onCheck={() => void check()}
        />
        <div class="row wrap">
          {text("dhcp.start", t("From"), t("first address handed out"), "192.168.1.100")}
          {text("dhcp.end", t("To"), t("last address handed out"), "192.168.1.250")}
          {text("dhcp.router", t("Router (gateway)"), t("empty: Moat's own address"), "192.168.1.1")}
        </div>
        <div class="row wrap">
          {text("dhcp.netmask", t("Netmask"), t("empty: the interface's"))}
          {text("dhcp.leaseTime", t("Lease time"), t("45m, 12h, 2d or infinite; empty: 24h"), "24h")}
          {text("dns.domain.name", t("Local domain"), t("devices are named <name>.<domain>"), "lan")}
        </div>
        <div class="row wrap">
          <Check
            id="d-ipv6"
            label={t("IPv6: router advertisements and stateless DHCPv6 naming Moat as the DNS server")}
            checked={ipv6}
            set={setIpv6}
          />
          <Check
            id="d-rapid"
            label={t("Rapid Commit (RFC 4039: two messages instead of four)")}
            checked={rapid}
            set={setRapid}
          />
        </div>
        {errors["dhcp.active"] && <p class="note error">{errors["dhcp.active"]}</p>}
        <FormEnd error={errors.form} busy={busy || checking} label={t("Save DHCP settings")} />
      </form>
    </Card>
  );
}

export function Dhcp() {
  const { data: cfg, error, reload } = usePoll(() => get<{ config: DhcpCfg }>("/config").then((r) => r.config), 0);
  const { data: msgs } = usePoll(() => get<{ messages: Message[] }>("/info/messages"), 30_000);
  // the newest rival warning: the message is raised again at each start that finds one
  const rival = newestRival(msgs?.messages ?? []);
  return (
    <div class="stack dhcp-page">
      <ErrorNote error={error} />
      {cfg ? (
        <>
          <ServerSettings
            key={JSON.stringify({ ...cfg.dhcp, hosts: 0, domain: cfg.dns.domain.name })}
            cfg={cfg}
            reload={reload}
            rival={rival}
          />
          <Reservations hosts={cfg.dhcp.hosts} reload={reload} />
          <Leases hosts={cfg.dhcp.hosts} reload={reload} />
        </>
      ) : (
        !error && <Loading />
      )}
    </div>
  );
}
