// DHCP: the server's settings (dhcp.* and the local domain), the static leases (dhcp.hosts) and
// the live leases. Moat looks for another DHCP server each time its own starts (src/dhcp/detect.ts
// raises a message); what it found last is shown here before the switch is turned on, because two
// DHCP servers on one network hand out conflicting addresses.
import { useState } from "preact/hooks";
import { get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, Loading, Toggle } from "../components.tsx";
import { dateTime } from "../format.ts";
import { usePoll } from "../poll.ts";
import { HOSTNAME, ipNum, isIPv4, LEASE_TIME, saveDhcp } from "./dhcp-common.ts";
import { Leases, Reservations } from "./dhcp-leases.tsx";

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

type Message = { id: number; timestamp: number; type: string; plain: string };

/** src/dhcp/service.ts words the rival-server message so */
const RIVAL = /^Another DHCP server answers on /;

/** the checks src/config/schema.ts and src/dhcp/settings.ts make, so a mistake shows before the round trip */
function check(v: Record<string, string>, active: boolean): Record<string, string> {
  const e: Record<string, string> = {};
  for (const k of ["dhcp.start", "dhcp.end", "dhcp.router"])
    if (v[k] && !isIPv4(v[k]!)) e[k] = "not a valid IPv4 address";
  if (active && !v["dhcp.start"]) e["dhcp.start"] = "needed to serve DHCP";
  if (active && !v["dhcp.end"]) e["dhcp.end"] = "needed to serve DHCP";
  if (!e["dhcp.start"] && !e["dhcp.end"] && v["dhcp.start"] && v["dhcp.end"])
    if (ipNum(v["dhcp.end"]!) < ipNum(v["dhcp.start"]!)) e["dhcp.end"] = "the range ends before it starts";
  if (v["dhcp.leaseTime"] && !LEASE_TIME.test(v["dhcp.leaseTime"]!))
    e["dhcp.leaseTime"] = "a number of seconds, or with m, h, d, w (45m, 12h, 2d), or infinite";
  if (v["dns.domain.name"] && !HOSTNAME.test(v["dns.domain.name"]!)) e["dns.domain.name"] = "not a valid domain";
  return e;
}

function RivalNote({ rival, turningOn }: { rival: Message | undefined; turningOn: boolean }) {
  if (rival)
    return (
      <p class={`note ${turningOn ? "error" : ""}`} role={turningOn ? "alert" : "status"} data-testid="dhcp-rival">
        <strong>Another DHCP server answered</strong> when Moat's DHCP last started ({dateTime(rival.timestamp)}):{" "}
        {rival.plain.replace(RIVAL, "on ")} Turn off the router's DHCP server before turning this on.
      </p>
    );
  return (
    <p class="note" data-testid="dhcp-rival">
      Moat looks for another DHCP server each time its own starts; it has found none so far.
      {turningOn && " Turn off your router's DHCP server first: two on one network hand out conflicting addresses."}
    </p>
  );
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
    const found = check(v, active);
    if (Object.keys(found).length) return setErrors(found);
    if (
      turningOn &&
      rival &&
      !(await confirmAction(
        `Another DHCP server answered when Moat last looked (${rival.plain.replace(RIVAL, "on ")}) Turn Moat's DHCP server on anyway?`,
        "Turn on DHCP",
      ))
    )
      return;
    setBusy(true);
    const ok = await saveDhcp({ ...v, "dhcp.active": active, "dhcp.ipv6": ipv6, "dhcp.rapidCommit": rapid }, setErrors);
    setBusy(false);
    if (ok) reload();
  };
  return (
    <Card title="DHCP server">
      <form class="form" onSubmit={save} data-testid="dhcp-settings">
        <div class="row">
          <Toggle id="d-active" checked={active} onChange={setActive} label="DHCP server" />
          <label for="d-active">{active ? "On: Moat hands out addresses" : "Off"}</label>
        </div>
        <RivalNote rival={rival} turningOn={turningOn} />
        <div class="row wrap">
          {text("dhcp.start", "From", "first address handed out", "192.168.1.100")}
          {text("dhcp.end", "To", "last address handed out", "192.168.1.250")}
          {text("dhcp.router", "Router (gateway)", "empty: Moat's own address", "192.168.1.1")}
        </div>
        <div class="row wrap">
          {text("dhcp.netmask", "Netmask", "empty: the interface's")}
          {text("dhcp.leaseTime", "Lease time", "45m, 12h, 2d or infinite; empty: 24h", "24h")}
          {text("dns.domain.name", "Local domain", "devices are named <name>.<domain>", "lan")}
        </div>
        <div class="row wrap">
          <label class="check">
            <input
              type="checkbox"
              id="d-ipv6"
              checked={ipv6}
              onChange={(e) => setIpv6((e.target as HTMLInputElement).checked)}
            />
            IPv6: router advertisements and stateless DHCPv6 naming Moat as the DNS server
          </label>
          <label class="check">
            <input
              type="checkbox"
              id="d-rapid"
              checked={rapid}
              onChange={(e) => setRapid((e.target as HTMLInputElement).checked)}
            />
            Rapid Commit (RFC 4039: two messages instead of four)
          </label>
        </div>
        {errors["dhcp.active"] && <p class="note error">{errors["dhcp.active"]}</p>}
        {errors.form && <p class="note error">{errors.form}</p>}
        <div class="row end">
          <Button type="submit" kind="primary" busy={busy}>
            Save DHCP settings
          </Button>
        </div>
      </form>
    </Card>
  );
}

export function Dhcp() {
  const { data: cfg, error, reload } = usePoll(() => get<{ config: DhcpCfg }>("/config").then((r) => r.config), 0);
  const { data: msgs } = usePoll(() => get<{ messages: Message[] }>("/info/messages"), 30_000);
  // the newest rival warning: the message is raised again at each start that finds one
  const rival = (msgs?.messages ?? []).filter((m) => RIVAL.test(m.plain)).sort((a, b) => b.timestamp - a.timestamp)[0];
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
