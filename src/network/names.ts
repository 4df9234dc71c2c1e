// The host names of the addresses in the network table (network_addresses.name): found by the DNS
// server's PTR lookups (src/dns/client-names.ts), shown with clients, the statistics and the query log.
import type { Database } from "bun:sqlite";

/** The name of an address, or null. */
export function addressName(db: Database, ip: string): string | null {
  const r = db.query("SELECT name FROM network_addresses WHERE ip = ? AND name IS NOT NULL").get(ip) as {
    name: string;
  } | null;
  return r?.name ?? null;
}

/** The name of the newest address of the device with this MAC address, or null. */
export function hwaddrName(db: Database, hwaddr: string): string | null {
  const r = db
    .query(
      "SELECT a.name FROM network n JOIN network_addresses a ON a.network_id = n.id WHERE n.hwaddr = ? COLLATE NOCASE AND a.name IS NOT NULL ORDER BY a.lastSeen DESC",
    )
    .get(hwaddr) as { name: string } | null;
  return r?.name ?? null;
}

/** Every named address, the least recently seen first (so a Map built from them keeps the newest). */
export function addressNames(db: Database): Array<{ ip: string; name: string }> {
  return db
    .query("SELECT ip, name FROM network_addresses WHERE name IS NOT NULL AND name != '' ORDER BY lastSeen")
    .all() as Array<{ ip: string; name: string }>;
}

/** Stores what a lookup found for an address (null: no name) and when. */
export function setAddressName(db: Database, ip: string, name: string | null, at: number): void {
  db.query("UPDATE network_addresses SET name = ?, nameUpdated = ? WHERE ip = ?").run(name, Math.floor(at), ip);
}
