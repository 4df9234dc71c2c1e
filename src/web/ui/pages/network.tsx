// Network: the devices Moat has seen (GET /api/network/devices: the kernel's neighbour table joined
// with the clients of the last 24 hours), each with its maker from the MAC prefix (the API fills
// macVendor from src/network/oui-table.ts). A device can become a client (for group rules) or be
// forgotten. Pi-hole's Network page shows the same table.
import { api, enc, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction } from "../components.tsx";
import { throwProcessed, type Processed } from "../crud.tsx";
import { Heads } from "../fields.tsx";
import { ago, dateTime, num } from "../format.ts";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { DataTable } from "../table.tsx";

type Device = {
  id: number;
  hwaddr: string;
  interface: string;
  firstSeen: number;
  lastQuery: number;
  numQueries: number;
  macVendor: string | null;
  ips: Array<{ ip: string; name: string | null; lastSeen: number }>;
};

/** Pi-hole keys a device it knows no MAC address of by "ip-<address>" */
const isMac = (hw: string) => /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(hw);

/** what a client entry for the device is: its MAC address (follows it across addresses), else its address */
const clientOf = (d: Device) => (isMac(d.hwaddr) ? d.hwaddr : (d.ips[0]?.ip ?? d.hwaddr.replace(/^ip-/, "")));

/** a second hex digit of 2, 6, A or E: the device made the address up (a phone's private Wi-Fi address) */
const randomised = (hw: string) => isMac(hw) && (parseInt(hw[1]!, 16) & 2) !== 0;

function vendor(d: Device): string {
  if (d.macVendor) return d.macVendor;
  if (!isMac(d.hwaddr)) return t("MAC address unknown (Moat itself, or behind a router)");
  return randomised(d.hwaddr) ? t("private (randomised) address") : t("unknown");
}

export function Network() {
  const { data, error, reload } = usePoll(
    () =>
      Promise.all([
        get<{ devices: Device[] }>("/network/devices?max_devices=500&max_addresses=5"),
        get<{ clients: Array<{ client: string }> }>("/clients"),
      ]),
    30_000,
  );
  const [busy, run] = useAction();
  if (!data) return error ? <ErrorNote error={error} /> : <Loading />;
  const [{ devices }, { clients }] = data;
  const known = new Set(clients.map((c) => c.client.toLowerCase()));
  const addClient = (d: Device) =>
    run(
      async () => {
        const names = d.ips.map((a) => a.name).filter(Boolean);
        throwProcessed(
          await api<Processed>("POST", "/clients", {
            client: clientOf(d),
            comment: [names[0], d.macVendor].filter(Boolean).join(" · ") || null,
          }),
        );
        reload();
      },
      t("Added {client} as a client", { client: clientOf(d) }),
    );
  const forget = async (d: Device) => {
    if (
      await confirmAction(
        t(
          "Forget {device}? It is listed again while it has queries in the last 24 hours, under a new first-seen time.",
          { device: d.hwaddr },
        ),
        t("Forget"),
      )
    )
      await run(
        () => api("DELETE", `/network/devices/${enc(String(d.id))}`).then(reload),
        t("Forgot {device}", { device: d.hwaddr }),
      );
  };
  return (
    <Card title={t("Devices seen on the network")}>
      <ErrorNote error={error} />
      {devices.length ? (
        <DataTable
          class="devices"
          testId="devices"
          head={
            <Heads
              titles={[t("Device"), t("Addresses and names"), t("First seen"), t("Last query"), [t("Queries"), "num"]]}
            />
          }
        >
          {devices.map((d) => {
            const client = clientOf(d);
            const isClient = known.has(client.toLowerCase()) || d.ips.some((a) => known.has(a.ip));
            return (
              <tr key={d.id} data-key={d.hwaddr}>
                <td data-label={t("Device")}>
                  <span class="mono">{isMac(d.hwaddr) ? d.hwaddr : "–"}</span>
                  <small class="muted block">
                    {vendor(d)}
                    {d.interface && d.interface !== "N/A" ? ` · ${d.interface}` : ""}
                  </small>
                </td>
                <td data-label={t("Addresses")} class="wrap">
                  {d.ips.map((a) => (
                    <span key={a.ip} class="block">
                      {a.ip}
                      {a.name && <small class="muted"> {a.name}</small>}
                    </span>
                  ))}
                </td>
                <td data-label={t("First seen")}>{d.firstSeen ? dateTime(d.firstSeen) : "–"}</td>
                <td data-label={t("Last query")}>{d.lastQuery ? ago(d.lastQuery) : t("never")}</td>
                <td data-label={t("Queries")} class="num">
                  {num(d.numQueries)}
                </td>
                <td class="row-actions">
                  {isClient ? (
                    <span class="badge ok">{t("client")}</span>
                  ) : (
                    <Button
                      busy={busy}
                      aria-label={t("Add as client: {client}", { client })}
                      onClick={() => addClient(d)}
                    >
                      {t("Add as client")}
                    </Button>
                  )}
                  <Button
                    kind="ghost"
                    aria-label={t("Forget {device}", { device: d.hwaddr })}
                    onClick={() => forget(d)}
                  >
                    {t("Forget")}
                  </Button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : (
        <p class="empty">{t("No devices yet: they appear once they send Moat a query.")}</p>
      )}
    </Card>
  );
}
