// The answer section of a reply as one short line for the query log ("CNAME b.example, A 192.0.2.1"):
// what AdGuard Home's log shows beside each query. Capped so a row stays small however large the
// reply; the names behind CNAME, PTR, NS and MX are read, other types show their type only.
import { compressV6 } from "../net/ip.ts";
import { TYPE, getU16, readName, walkMessage } from "./wire.ts";

/** Characters one row's answer text keeps at most (a cut one ends with "…"). */
const ANSWER_TEXT_MAX = 200;

const NAMES: Record<number, string> = {
  1: "A",
  2: "NS",
  5: "CNAME",
  12: "PTR",
  15: "MX",
  16: "TXT",
  28: "AAAA",
  33: "SRV",
  64: "SVCB",
  65: "HTTPS",
};

function rdataText(buf: Uint8Array, type: number, at: number, len: number): string {
  if (type === TYPE.A && len === 4) return `${buf[at]}.${buf[at + 1]}.${buf[at + 2]}.${buf[at + 3]}`;
  if (type === TYPE.AAAA && len === 16) {
    const groups: string[] = [];
    for (let k = 0; k < 16; k += 2) groups.push(getU16(buf, at + k).toString(16));
    return compressV6(groups);
  }
  if (type === TYPE.CNAME || type === TYPE.PTR || type === TYPE.NS)
    return (readName(buf, at) ?? "?").replace(/\.$/, "");
  if (type === TYPE.MX && len > 2) return `${getU16(buf, at)} ${(readName(buf, at + 2) ?? "?").replace(/\.$/, "")}`;
  return "";
}

/** The reply's answer records as text, or null when it has none (a block, NXDOMAIN, NODATA). */
export function answerText(reply: Uint8Array): string | null {
  const m = walkMessage(reply);
  if (!m) return null;
  let out = "";
  for (const r of m.records) {
    if (r.section !== 0) break;
    const data = rdataText(reply, r.type, r.rdata, r.rdlen);
    const item = `${NAMES[r.type] ?? `TYPE${r.type}`}${data ? ` ${data}` : ""}`;
    out = out ? `${out}, ${item}` : item;
    if (out.length > ANSWER_TEXT_MAX) return `${out.slice(0, ANSWER_TEXT_MAX - 1)}…`;
  }
  return out || null;
}
