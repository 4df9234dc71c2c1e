// The root servers a resolution starts from: IANA's root hints built in
// (https://www.internic.net/domain/named.root, last changed 2023-09 for b.root-servers.net), or a
// file in the same zone-file syntax named by dns.recursive.rootHints (a private root, a test's).
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { nameFromText } from "../dnssec/names.ts";

export interface RootServer {
  name: Uint8Array;
  addrs: string[];
}

const IANA: [string, string, string][] = [
  ["a", "198.41.0.4", "2001:503:ba3e::2:30"],
  ["b", "170.247.170.2", "2801:1b8:10::b"],
  ["c", "192.33.4.12", "2001:500:2::c"],
  ["d", "199.7.91.13", "2001:500:2d::d"],
  ["e", "192.203.230.10", "2001:500:a8::e"],
  ["f", "192.5.5.241", "2001:500:2f::f"],
  ["g", "192.112.36.4", "2001:500:12::d0d"],
  ["h", "198.97.190.53", "2001:500:1::53"],
  ["i", "192.36.148.17", "2001:7fe::53"],
  ["j", "192.58.128.30", "2001:503:c27::2:30"],
  ["k", "193.0.14.129", "2001:7fd::1"],
  ["l", "199.7.83.42", "2001:500:9f::42"],
  ["m", "202.12.27.33", "2001:dc3::35"],
];

const IANA_ROOTS: readonly RootServer[] = IANA.map(([l, v4, v6]) => ({
  name: nameFromText(`${l}.root-servers.net`)!,
  addrs: [v4, v6],
}));

/**
 * The servers of a root-hints text: its A and AAAA records of the names its root NS records name
 * ("<name> [ttl] [IN] A|AAAA <address>", comments after ';'). A string says why there are none.
 */
export function parseHints(text: string): RootServer[] | string {
  const byName = new Map<string, string[]>();
  const ns: string[] = [];
  for (const raw of text.split("\n")) {
    const f = raw.replace(/;.*/, "").trim().split(/\s+/);
    if (f.length < 3) continue;
    const type = f.find((x, i) => i > 0 && /^(A|AAAA|NS)$/i.test(x))?.toUpperCase();
    const value = f[f.length - 1]!;
    const owner = f[0]!.toLowerCase().replace(/\.$/, "");
    if (type === "NS" && owner === "") ns.push(value.toLowerCase().replace(/\.$/, ""));
    else if ((type === "A" && isIP(value) === 4) || (type === "AAAA" && isIP(value) === 6)) {
      const list = byName.get(owner) ?? [];
      list.push(value);
      byName.set(owner, list);
    }
  }
  const out: RootServer[] = [];
  for (const n of ns.length ? ns : [...byName.keys()]) {
    const name = nameFromText(n);
    const addrs = byName.get(n);
    if (name && addrs) out.push({ name, addrs });
  }
  return out.length ? out : "no root server with an address in it";
}

/** dns.recursive.rootHints: "" for IANA's; a file that cannot be used is said in `warn`, and IANA's serve. */
export function loadHints(path: string, warn: (m: string) => void): readonly RootServer[] {
  if (path === "") return IANA_ROOTS;
  let text: string;
  try {
    text = readFileSync(path, "latin1");
  } catch (e) {
    warn(`dns.recursive.rootHints: cannot read ${path} (${(e as Error).message}): IANA's root servers are used`);
    return IANA_ROOTS;
  }
  const r = parseHints(text);
  if (typeof r === "string") {
    warn(`dns.recursive.rootHints: ${path} has ${r}: IANA's root servers are used`);
    return IANA_ROOTS;
  }
  return r;
}
