// The DHCP page's two tables: static leases (dhcp.hosts lines, '<MAC>[,<IP>][,<name>][,<lease
// time>]' as Pi-hole writes them) and the live leases (GET /api/dhcp/leases), where a lease can be
// made static or deleted (the device then asks again and may get another address).
import { useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, useAction, TextInput } from "../components.tsx";
import { Heads } from "../fields.tsx";
import { dateTime } from "../format.ts";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { isIPv4, LEASE_TIME, saveDhcp } from "./dhcp-common.ts";
import { DataTable } from "../table.tsx";

type Lease = { expires: number; name: string; hwaddr: string; ip: string; clientid: string };
type Reservation = { line: string; mac: string; ip: string; name: string; time: string };

const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;
const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;

/** the fields of a dhcp.hosts line, in whatever order they were written (as src/dhcp/settings.ts reads it) */
function parse(line: string): Reservation {
  const r: Reservation = { line, mac: "", ip: "", name: "", time: "" };
  for (const p of line.split(",").map((x) => x.trim())) {
    if (!r.mac && MAC.test(p)) r.mac = p.toLowerCase().replaceAll("-", ":");
    else if (!r.ip && isIPv4(p)) r.ip = p;
    else if (!r.time && /^\d|^infinite$/i.test(p) && LEASE_TIME.test(p)) r.time = p;
    else if (!r.name && p) r.name = p;
  }
  return r;
}

const lineOf = (mac: string, ip: string, name: string) => [mac, ip, name].filter(Boolean).join(",");

export function Reservations({ hosts, reload }: { hosts: string[]; reload: () => void }) {
  const [mac, setMac] = useState("");
  const [ip, setIp] = useState("");
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const rows = hosts.map(parse);
  const save = async (next: string[]) => {
    setBusy(true);
    const ok = await saveDhcp({ "dhcp.hosts": next }, setErrors);
    setBusy(false);
    if (ok) reload();
    return ok;
  };
  const add = async (e: Event) => {
    e.preventDefault();
    const m = mac.trim().toLowerCase().replaceAll("-", ":");
    const found: Record<string, string> = {};
    if (!MAC.test(m)) found.mac = t("a MAC address: {example}", { example: "aa:bb:cc:dd:ee:ff" });
    else if (rows.some((r) => r.mac === m)) found.mac = t("this device has a static lease already");
    if (ip && !isIPv4(ip.trim())) found.ip = t("not a valid IPv4 address");
    else if (ip && rows.some((r) => r.ip === ip.trim())) found.ip = t("another device has this address");
    if (name && !NAME.test(name.trim())) found.name = t("letters, digits and hyphens");
    if (Object.keys(found).length) return setErrors(found);
    if (await save([...hosts, lineOf(m, ip.trim(), name.trim())])) {
      setMac("");
      setIp("");
      setName("");
    }
  };
  const remove = async (r: Reservation) => {
    if (await confirmAction(t("Delete the static lease of {mac}?", { mac: r.mac }), t("Delete")))
      await save(hosts.filter((h) => h !== r.line));
  };
  return (
    <Card title={t("Static leases")}>
      <p class="muted">{t("A device with a static lease always gets the same address (and name).")}</p>
      {rows.length ? (
        <DataTable testId="reservations" head={<Heads titles={[t("MAC address"), t("IP address"), t("Name")]} />}>
          {rows.map((r) => (
            <tr key={r.line} data-key={r.mac}>
              <td data-label={t("MAC")} class="mono">
                {r.mac}
              </td>
              <td data-label={t("IP")}>{r.ip || t("any free")}</td>
              <td data-label={t("Name")} class="wrap">
                {r.name || "–"}
                {r.time && <small class="muted"> · {r.time}</small>}
              </td>
              <td class="row-actions">
                <Button
                  kind="ghost"
                  aria-label={t("Delete static lease {mac}", { mac: r.mac })}
                  onClick={() => remove(r)}
                >
                  {t("Delete")}
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p class="empty">{t("No static leases yet.")}</p>
      )}
      <form class="form" onSubmit={add}>
        <div class="row wrap">
          <Field label={t("MAC address")} id="r-mac" error={errors.mac}>
            <TextInput id="r-mac" required placeholder="aa:bb:cc:dd:ee:ff" value={mac} onValue={setMac} />
          </Field>
          <Field label={t("IP address")} id="r-ip" error={errors.ip} hint={t("empty: any free address")}>
            <TextInput id="r-ip" value={ip} onValue={setIp} />
          </Field>
          <Field label={t("Name")} id="r-name" error={errors.name}>
            <TextInput id="r-name" value={name} onValue={setName} />
          </Field>
          <Button type="submit" class="align-end" busy={busy}>
            {t("Add static lease")}
          </Button>
        </div>
        {(errors["dhcp.hosts"] ?? errors.form) && <p class="note error">{errors["dhcp.hosts"] ?? errors.form}</p>}
      </form>
    </Card>
  );
}

export function Leases({ hosts, reload }: { hosts: string[]; reload: () => void }) {
  const { data, error, reload: again } = usePoll(() => get<{ leases: Lease[] }>("/dhcp/leases"), 15_000);
  const [busy, run] = useAction();
  const staticMacs = new Set(hosts.map((h) => parse(h).mac));
  const makeStatic = (l: Lease) =>
    run(async () => {
      const name = l.name !== "*" && NAME.test(l.name) ? l.name : "";
      // a reservation holding this address for another device would clash: that one goes
      const rest = hosts.filter((h) => parse(h).ip !== l.ip && parse(h).mac !== l.hwaddr);
      const ok = await saveDhcp({ "dhcp.hosts": [...rest, lineOf(l.hwaddr, l.ip, name)] }, (e) => {
        const text = Object.values(e)[0];
        if (text) throw new Error(text);
      });
      if (ok) reload();
    });
  const remove = async (l: Lease) => {
    if (
      await confirmAction(
        t("Delete the lease of {ip}? The device keeps the address until it asks again, and may then get another one.", {
          ip: l.ip,
        }),
        t("Delete"),
      )
    )
      await run(
        () => api("DELETE", `/dhcp/leases/${enc(l.ip)}`).then(again),
        t("Deleted the lease of {ip}", { ip: l.ip }),
      );
  };
  const leases = data?.leases ?? [];
  return (
    <Card title={t("Current leases")}>
      <ErrorNote error={error} />
      {leases.length ? (
        <DataTable
          testId="leases"
          head={<Heads titles={[t("IP address"), t("MAC address"), t("Name"), t("Expires")]} />}
        >
          {leases.map((l) => (
            <tr key={l.ip} data-key={l.ip}>
              <td data-label={t("IP")}>{l.ip}</td>
              <td data-label={t("MAC")} class="mono">
                {l.hwaddr}
              </td>
              <td data-label={t("Name")} class="wrap">
                {l.name === "*" ? "–" : l.name}
              </td>
              <td data-label={t("Expires")}>{l.expires ? dateTime(l.expires) : t("never")}</td>
              <td class="row-actions">
                {staticMacs.has(l.hwaddr) ? (
                  <span class="badge ok">{t("static")}</span>
                ) : (
                  <Button
                    busy={busy}
                    aria-label={t("Make the lease of {ip} static", { ip: l.ip })}
                    onClick={() => makeStatic(l)}
                  >
                    {t("Make static")}
                  </Button>
                )}
                <Button kind="ghost" aria-label={t("Delete lease {ip}", { ip: l.ip })} onClick={() => remove(l)}>
                  {t("Delete")}
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        data && <p class="empty">{t("No leases.")}</p>
      )}
    </Card>
  );
}
