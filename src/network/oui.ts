// The maker of a device from the first three bytes of its MAC address (the IEEE OUI), as Pi-hole
// shows it from its macvendor.db; only for the vendors oui-table.ts carries, else null.
import { OUI_TABLE } from "./oui-table.ts";

let byPrefix: Map<string, string> | null = null;

function table(): Map<string, string> {
  if (byPrefix) return byPrefix;
  byPrefix = new Map();
  for (const [vendor, prefixes] of Object.entries(OUI_TABLE))
    for (let i = 0; i + 6 <= prefixes.length; i += 6) byPrefix.set(prefixes.slice(i, i + 6), vendor);
  return byPrefix;
}

/** "aa:bb:cc:dd:ee:ff" → vendor; a locally administered address (a phone's private Wi-Fi address) has none */
export function macVendor(hwaddr: string): string | null {
  const m = /^([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):/i.exec(hwaddr);
  if (!m) return null;
  // IEEE 802 §8.2: bit 1 of the first byte set = a locally administered (randomised) address
  if (parseInt(m[1]!, 16) & 2) return null;
  return table().get(`${m[1]}${m[2]}${m[3]}`.toLowerCase()) ?? null;
}
