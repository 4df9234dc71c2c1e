// The appliance's own addresses: which one to give a client (pi.hole, IP blocking mode), which
// subnets count as local (listeningMode LOCAL), and which PTR names are ours.
import { networkInterfaces } from "node:os";
import { inCidr, ipTo16, parseCidr, type Cidr } from "../net/ip.ts";

interface IfAddr {
  address: string;
  family: 4 | 6;
  cidr: Cidr | null;
  internal: boolean;
}

let cached: { at: number; list: IfAddr[] } | null = null;

function interfaceAddresses(): IfAddr[] {
  if (cached && Date.now() - cached.at < 30000) return cached.list;
  const list: IfAddr[] = [];
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.family === "IPv6" && a.address.startsWith("fe80")) continue;
      list.push({
        address: a.address,
        family: a.family === "IPv4" ? 4 : 6,
        cidr: a.cidr ? parseCidr(a.cidr) : null,
        internal: a.internal,
      });
    }
  }
  cached = { at: Date.now(), list };
  return list;
}

/** Our address a client should use: the one on the client's subnet, else the first non-loopback. */
export function localAddressFor(client: string, family: 4 | 6): string | null {
  const bytes = ipTo16(client);
  const list = interfaceAddresses().filter((a) => a.family === family);
  if (bytes) for (const a of list) if (a.cidr && inCidr(bytes, a.cidr)) return a.address;
  const isLoop = client === "::1" || client.startsWith("127.");
  if (isLoop) return family === 4 ? "127.0.0.1" : "::1";
  return list.find((a) => !a.internal)?.address ?? list[0]?.address ?? null;
}

/** isLocalClient's answers for the current address list (asked for every query of every client). */
let localMemo: { list: IfAddr[]; byClient: Map<string, boolean> } | null = null;

/** Whether a client is loopback or on a subnet of one of our interfaces (listeningMode LOCAL). */
export function isLocalClient(client: string): boolean {
  if (client.startsWith("127.") || client === "::1") return true;
  const list = interfaceAddresses();
  if (localMemo?.list !== list) localMemo = { list, byClient: new Map() };
  let local = localMemo.byClient.get(client);
  if (local === undefined) {
    const bytes = ipTo16(client);
    local = bytes !== null && list.some((a) => a.cidr && inCidr(bytes, a.cidr));
    if (localMemo.byClient.size < 4096) localMemo.byClient.set(client, local);
  }
  return local;
}

export function isOwnAddress(ip: string): boolean {
  return interfaceAddresses().some((a) => a.address === ip);
}
