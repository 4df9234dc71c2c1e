// Network: the devices Moat has seen (GET /api/network/devices: the kernel's neighbour table joined
// with the clients of the last 24 hours), each with its maker from the MAC prefix (the API fills
// macVendor from src/network/oui-table.ts). A device can become a client (for group rules) or be
// forgotten. Pi-hole's Network page shows the same table.
import { api, enc, get } from "../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction } from "../components.tsx";
import { throwProcessed, type Processed } from "../crud.tsx";
import { ago, dateTime, num } from "../format.ts";
import { usePoll } from "../poll.ts";
import { ActionsHeader, DataTable } from "../table.tsx";

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
  if (!isMac(d.hwaddr)) return "MAC address unknown (Moat itself, or behind a router)";
  return randomised(d.hwaddr) ? "private (randomised) address" : "unknown";
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
      `Added ${clientOf(d)} as a client`,
    );
  const forget = async (d: Device) => {
    if (
      await confirmAction(
        `Forget ${d.hwaddr}? It is listed again while it has queries in the last 24 hours, under a new first-seen time.`,
        "Forget",
      )
    )
      await run(() => api("DELETE", `/network/devices/${enc(String(d.id))}`).then(reload), `Forgot ${d.hwaddr}`);
  };
  return (
    <Card title="Devices seen on the network">
      <ErrorNote error={error} />
      {devices.length ? (
        <DataTable
          class="devices"
          testId="devices"
          head={
            <>
              <th>Device</th>
              <th>Addresses and names</th>
              <th>First seen</th>
              <th>Last query</th>
              <th class="num">Queries</th>
              <ActionsHeader />
            </>
          }
        >
          {devices.map((d) => {
            const client = clientOf(d);
            const isClient = known.has(client.toLowerCase()) || d.ips.some((a) => known.has(a.ip));
            return (
              <tr key={d.id} data-key={d.hwaddr}>
                <td data-label="Device">
                  <span class="mono">{isMac(d.hwaddr) ? d.hwaddr : "–"}</span>
                  <small class="muted block">
                    {vendor(d)}
                    {d.interface && d.interface !== "N/A" ? ` · ${d.interface}` : ""}
                  </small>
                </td>
                <td data-label="Addresses" class="wrap">
                  {d.ips.map((a) => (
                    <span key={a.ip} class="block">
                      {a.ip}
                      {a.name && <small class="muted"> {a.name}</small>}
                    </span>
                  ))}
                </td>
                <td data-label="First seen">{d.firstSeen ? dateTime(d.firstSeen) : "–"}</td>
                <td data-label="Last query">{d.lastQuery ? ago(d.lastQuery) : "never"}</td>
                <td data-label="Queries" class="num">
                  {num(d.numQueries)}
                </td>
                <td class="row-actions">
                  {isClient ? (
                    <span class="badge ok">client</span>
                  ) : (
                    <Button busy={busy} aria-label={`Add as client: ${client}`} onClick={() => addClient(d)}>
                      Add as client
                    </Button>
                  )}
                  <Button kind="ghost" aria-label={`Forget ${d.hwaddr}`} onClick={() => forget(d)}>
                    Forget
                  </Button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : (
        <p class="empty">No devices yet: they appear once they send Moat a query.</p>
      )}
    </Card>
  );
}
