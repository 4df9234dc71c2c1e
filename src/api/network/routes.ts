// /api/network/*: devices seen (the neighbour table joined with the clients of the query log,
// kept in pihole-FTL.db's network tables), and the host's gateway, routes and interfaces.
import { IpAddress } from "../core/address.ts";
import { Elysia, t, type TSchema } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { gateways, interfaces, neighbours, routes } from "../../host/interfaces.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { boolParam, intParam } from "../stats/params.ts";

const compat = (rt: ApiDeps) => rt.config.current.webserver.api.piholeCompat;

/** The interfaces, without Moat's `netmask` in compatibility mode (FTL's addresses carry only prefixlen). */
function interfacesFor(rt: ApiDeps) {
  const ifs = interfaces();
  return compat(rt) ? ifs.map((i) => ({ ...i, addresses: i.addresses.map(({ netmask: _, ...a }) => a) })) : ifs;
}

/**
 * The devices; in compatibility mode an address never named has nameUpdated 0: FTL always writes an
 * integer there (its network-table.c reads the row with sqlite3_column_int64, never null).
 */
function devicesFor(rt: ApiDeps, maxDevices: number, maxAddresses: number) {
  const devices = rt.network.listDevices(maxDevices, maxAddresses);
  if (compat(rt)) for (const d of devices) for (const ip of d.ips) ip.nameUpdated ??= 0;
  return devices;
}

/**
 * Brings the network tables up to date with the neighbour table and the last 24 h of clients; while
 * another thread writes the database this is left to the next request (this thread answers DNS).
 */
function refreshDevices(rt: ApiDeps): void {
  rt.network.recordDevicesWithoutWaiting(rt.stats.window.clients, neighbours());
}

const Device = t.Object({
  id: t.Integer(),
  hwaddr: t.String(),
  interface: t.String(),
  firstSeen: t.Integer(),
  lastQuery: t.Integer(),
  numQueries: t.Integer(),
  macVendor: t.Union([t.String(), t.Null()]),
  ips: t.Array(
    t.Object({
      ip: IpAddress(),
      name: t.Union([t.String(), t.Null()]),
      lastSeen: t.Integer(),
      nameUpdated: t.Union([
        t.Integer({ description: "unix time the name was last set (0: never, in Pi-hole compatibility mode)" }),
        t.Null({ description: "the address was never named", "x-moat-only": true }),
      ]),
    }),
  ),
});
const Detailed = t.Object({ detailed: t.Optional(t.String()) });
/** A key left out when the kernel has no value for it (as Pi-hole does), never null. */
const Opt = <T extends TSchema>(x: T) => t.Optional(x);
const RouteReply = t.Object({
  gateway: Opt(t.String()),
  family: t.String({ description: '"inet" or "inet6"' }),
  table: t.Integer(),
  protocol: Opt(t.String()),
  scope: Opt(t.String()),
  type: t.String(),
  flags: t.Array(t.String()),
  oif: t.String(),
  iif: Opt(t.String()),
  dst: t.String(),
  src: Opt(t.String()),
  prefsrc: Opt(t.String()),
  priority: t.Integer(),
  pref: Opt(t.String()),
});
const Size = t.Object({ value: t.Number(), unit: t.String({ description: 'SI prefix: "", "K", "M", "G", …' }) });
const Counter = Opt(t.Integer());
const InterfaceReply = t.Object({
  name: t.String(),
  speed: Opt(t.Integer({ description: "Mbit/s" })),
  carrier: Opt(t.Boolean()),
  type: Opt(t.String()),
  flags: t.Array(t.String()),
  state: Opt(t.String()),
  proto_down: Opt(t.Boolean()),
  address: Opt(t.String()),
  broadcast: Opt(t.String()),
  perm_address: Opt(t.String()),
  stats: t.Object({
    rx_bytes: Opt(Size),
    tx_bytes: Opt(Size),
    rx_packets: Counter,
    tx_packets: Counter,
    rx_errors: Counter,
    tx_errors: Counter,
    rx_dropped: Counter,
    tx_dropped: Counter,
    multicast: Counter,
    collisions: Counter,
  }),
  addresses: t.Array(
    t.Object({
      address: IpAddress(),
      family: t.String(),
      prefixlen: t.Integer(),
      scope: t.String(),
      netmask: t.Optional(
        t.String({
          description: "left out in Pi-hole compatibility mode (FTL has only prefixlen)",
          "x-moat-only": true,
        }),
      ),
    }),
  ),
});
const GatewayReply = t.Object({
  gateway: t.Array(
    t.Object({ family: t.String(), interface: t.String(), address: IpAddress(), local: t.Array(IpAddress()) }),
  ),
  routes: t.Optional(t.Array(RouteReply, { description: "with detailed=true" })),
  interfaces: t.Optional(t.Array(InterfaceReply, { description: "with detailed=true" })),
});

export function networkRoutes(rt: ApiDeps) {
  const detail = (summary: string) => ({ tags: ["Network"], summary });
  return new Elysia({ name: "network" })
    .get(
      "/network/devices",
      ({ query }) => {
        try {
          refreshDevices(rt);
        } catch (e) {
          rt.log("warn", `network table refresh failed: ${(e as Error).message}`);
        }
        const maxDevices = intParam(query.max_devices, 10);
        const maxAddresses = intParam(query.max_addresses, 3);
        return { devices: devicesFor(rt, maxDevices, maxAddresses) };
      },
      {
        query: t.Object({ max_devices: t.Optional(t.String()), max_addresses: t.Optional(t.String()) }),
        response: t.Object({ devices: t.Array(Device) }),
        detail: detail("Devices seen on the network"),
      },
    )
    .delete(
      "/network/devices/:device_id",
      ({ params }) => {
        if (!/^\d+$/.test(params.device_id))
          throw new ApiError(400, "invalid_request", "Missing or invalid {id} parameter", null);
        const id = Number(params.device_id);
        if (!rt.network.forgetDevice(id)) throw Errors.notFound(`/api/network/devices/${params.device_id}`);
        return undefined;
      },
      { params: t.Object({ device_id: t.String() }), detail: detail("Forget a device") },
    )
    .get(
      "/network/gateway",
      ({ query }) => ({
        gateway: gateways(),
        ...(boolParam(query.detailed, false) ? { routes: routes(), interfaces: interfacesFor(rt) } : {}),
      }),
      {
        query: Detailed,
        response: GatewayReply,
        detail: detail("Default gateways (detailed: also routes and interfaces)"),
      },
    )
    .get("/network/routes", () => ({ routes: routes() }), {
      query: Detailed,
      response: t.Object({ routes: t.Array(RouteReply) }),
      detail: detail("The routing table"),
    })
    .get("/network/interfaces", () => ({ interfaces: interfacesFor(rt) }), {
      query: Detailed,
      response: t.Object({ interfaces: t.Array(InterfaceReply) }),
      detail: detail("Network interfaces with addresses and counters"),
    });
}
