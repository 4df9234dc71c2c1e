// The devices seen on the network (Pi-hole's `network` table, one row per MAC address, and
// `network_addresses`, the IP addresses each used) in the long-term database pihole-FTL.db.
import type { Database } from "bun:sqlite";
import { macVendor } from "./oui.ts";

/** What the 24 h window knows of a client address: its queries and the time of the newest. */
interface SeenClient {
  count: number;
  last: number;
}

/** The kernel's neighbour entry of an address (src/host/interfaces.ts, neighbours()). */
interface Neighbour {
  hwaddr: string;
  iface: string;
}

interface Device {
  id: number;
  hwaddr: string;
  interface: string;
  firstSeen: number;
  lastQuery: number;
  numQueries: number;
  macVendor: string | null;
  ips: DeviceAddress[];
}

interface DeviceAddress {
  ip: string;
  name: string | null;
  lastSeen: number;
  nameUpdated: number | null;
}

/** Brings the tables up to date with the clients of the last 24 h and the neighbour table, in one transaction. */
export function recordDevices(
  db: Database,
  clients: Iterable<[string, SeenClient]>,
  arp: ReadonlyMap<string, Neighbour>,
  now = Math.floor(Date.now() / 1000),
): void {
  db.transaction(() => {
    for (const [ip, seen] of clients) {
      // the address every client gets at privacy level 2 and above: no device behind it
      if (ip === "0.0.0.0") continue;
      const n = arp.get(ip);
      // Without a MAC address Pi-hole keys a device by its IP, the same way.
      const hwaddr = n?.hwaddr ?? `ip-${ip}`;
      const last = Math.floor(seen.last ?? now);
      const row = db.query("SELECT id, numQueries FROM network WHERE hwaddr = ?").get(hwaddr) as {
        id: number;
        numQueries: number;
      } | null;
      let id: number;
      if (row) {
        db.query("UPDATE network SET lastQuery = MAX(lastQuery, ?), numQueries = MAX(numQueries, ?) WHERE id = ?").run(
          last,
          seen.count,
          row.id,
        );
        id = row.id;
      } else {
        id = Number(
          db
            .query(
              "INSERT INTO network (hwaddr, interface, firstSeen, lastQuery, numQueries, macVendor) VALUES (?,?,?,?,?,NULL)",
            )
            .run(hwaddr, n?.iface ?? "N/A", last, last, seen.count).lastInsertRowid,
        );
      }
      db.query(
        "INSERT INTO network_addresses (network_id, ip, lastSeen) VALUES (?,?,?) ON CONFLICT(ip) DO UPDATE SET network_id = excluded.network_id, lastSeen = MAX(lastSeen, excluded.lastSeen)",
      ).run(id, ip, last);
    }
  })();
}

/** The devices that queried last first, each with its newest addresses; a count ≤ 0 means all. */
export function listDevices(db: Database, maxDevices: number, maxAddresses: number): Device[] {
  const devs = db
    .query("SELECT * FROM network ORDER BY lastQuery DESC, id LIMIT ?")
    .all(maxDevices > 0 ? maxDevices : -1) as Array<Omit<Device, "ips">>;
  const addr = db.query(
    "SELECT ip, name, lastSeen, nameUpdated FROM network_addresses WHERE network_id = ? ORDER BY lastSeen DESC LIMIT ?",
  );
  return devs.map((d) => ({
    id: d.id,
    hwaddr: d.hwaddr,
    interface: d.interface,
    firstSeen: d.firstSeen,
    lastQuery: d.lastQuery,
    numQueries: d.numQueries,
    // Pi-hole fills the column from its macvendor.db; Moat looks the prefix up when asked
    macVendor: d.macVendor ?? macVendor(d.hwaddr),
    ips: (addr.all(d.id, maxAddresses > 0 ? maxAddresses : -1) as DeviceAddress[]).map((a) => ({
      ip: a.ip,
      name: a.name ?? null,
      lastSeen: a.lastSeen,
      nameUpdated: a.nameUpdated ?? null,
    })),
  }));
}

/** Devices with their newest `maxAddresses` addresses and names, the device that queried last first. */
export function devicesWithAddresses(db: Database, maxAddresses: number) {
  const devices = db
    .query("SELECT id, hwaddr, macVendor, lastQuery FROM network ORDER BY lastQuery DESC")
    .all() as Array<{ id: number; hwaddr: string; macVendor: string | null; lastQuery: number }>;
  const addrQ = db.query("SELECT ip, name FROM network_addresses WHERE network_id = ? ORDER BY lastSeen DESC LIMIT ?");
  return devices.map((d) => ({
    ...d,
    addresses: addrQ.all(d.id, maxAddresses) as Array<{ ip: string; name: string | null }>,
  }));
}

/** Whether the network table has a device with this MAC address, address or host name (any case). */
export function knownDevice(db: Database, client: string): boolean {
  return (
    db
      .query(
        "SELECT 1 FROM network WHERE hwaddr = ?1 COLLATE NOCASE UNION ALL SELECT 1 FROM network_addresses WHERE ip = ?1 OR name = ?1 COLLATE NOCASE LIMIT 1",
      )
      .get(client) !== null
  );
}

/** Forgets one device and its addresses; false when there was no such device. */
export function forgetDevice(db: Database, id: number): boolean {
  return db.transaction(() => {
    db.query("DELETE FROM network_addresses WHERE network_id = ?").run(id);
    return db.query("DELETE FROM network WHERE id = ?").run(id).changes > 0;
  })();
}

/** Empties both tables (POST /api/action/flush/network). */
export function forgetAllDevices(db: Database): void {
  db.transaction(() => {
    db.run("DELETE FROM network_addresses");
    db.run("DELETE FROM network");
  })();
}
