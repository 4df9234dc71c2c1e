// DHCPv4 messages (RFC 2131 §2, options RFC 2132): parsing what clients send, strictly (anything
// malformed is null and gets no answer), and building the server's replies.

export const MSG = { DISCOVER: 1, OFFER: 2, REQUEST: 3, DECLINE: 4, ACK: 5, NAK: 6, RELEASE: 7, INFORM: 8 } as const;
export const OPT = {
  PAD: 0,
  SUBNET_MASK: 1,
  ROUTER: 3,
  DNS: 6,
  HOSTNAME: 12,
  DOMAIN: 15,
  BROADCAST: 28,
  REQUESTED_IP: 50,
  LEASE_TIME: 51,
  OVERLOAD: 52,
  MSG_TYPE: 53,
  SERVER_ID: 54,
  PARAM_LIST: 55,
  MESSAGE: 56,
  RENEWAL: 58,
  REBINDING: 59,
  CLIENT_ID: 61,
  RAPID_COMMIT: 80,
  END: 255,
} as const;

const COOKIE = 0x63825363;
const HEADER = 236;
/** BOOTP's minimum message size (RFC 1542 §2.1): some clients drop shorter replies */
const MIN_REPLY = 300;

export interface DhcpRequest {
  type: number;
  xid: number;
  secs: number;
  flags: number;
  ciaddr: number;
  giaddr: number;
  /** client hardware address, lower-case colon-separated */
  mac: string;
  chaddr: Uint8Array;
  options: Map<number, Uint8Array>;
}

function macString(b: Uint8Array): string {
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join(":");
}

/** A client's request, or null when it is not a well-formed DHCP request from an Ethernet client. */
export function parseRequest(data: Uint8Array): DhcpRequest | null {
  if (data.length < HEADER + 4 || data.length > 4096) return null;
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] !== 1 || data[1] !== 1 || data[2] !== 6 || data[3]! > 16) return null; // BOOTREQUEST, Ethernet
  if (v.getUint32(HEADER, false) !== COOKIE) return null;
  const options = new Map<number, Uint8Array>();
  let i = HEADER + 4;
  let ended = false;
  while (i < data.length) {
    const code = data[i]!;
    if (code === OPT.PAD) {
      i++;
      continue;
    }
    if (code === OPT.END) {
      ended = true;
      break;
    }
    if (i + 1 >= data.length) return null;
    const len = data[i + 1]!;
    if (i + 2 + len > data.length) return null;
    const value = data.subarray(i + 2, i + 2 + len);
    // RFC 3396: a repeated option is one long option
    const prev = options.get(code);
    options.set(code, prev ? concat(prev, value) : value.slice());
    i += 2 + len;
  }
  if (!ended) return null;
  const typeOpt = options.get(OPT.MSG_TYPE);
  if (typeOpt?.length !== 1 || typeOpt[0]! < 1 || typeOpt[0]! > 8) return null;
  const type = typeOpt[0]!;
  if (type === MSG.OFFER || type === MSG.ACK || type === MSG.NAK) return null; // server messages
  for (const code of [OPT.REQUESTED_IP, OPT.SERVER_ID]) {
    const o = options.get(code);
    if (o && o.length !== 4) return null;
  }
  const chaddr = data.slice(28, 34);
  return {
    type,
    xid: v.getUint32(4, false),
    secs: v.getUint16(8, false),
    flags: v.getUint16(10, false),
    ciaddr: v.getUint32(12, false),
    giaddr: v.getUint32(24, false),
    mac: macString(chaddr),
    chaddr,
    options,
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function optIp(req: DhcpRequest, code: number): number | null {
  const o = req.options.get(code);
  return o && o.length === 4 ? new DataView(o.buffer, o.byteOffset, 4).getUint32(0, false) : null;
}

/** A printable text option (host name), or null */
export function optText(req: DhcpRequest, code: number): string | null {
  const o = req.options.get(code);
  if (!o?.length) return null;
  const s = new TextDecoder().decode(o).replace(/\0+$/, "");
  return s || null;
}

/** The client identifier in dnsmasq's lease-file spelling (hex bytes joined by ':'), or "*" */
export function clientIdString(req: DhcpRequest): string {
  const o = req.options.get(OPT.CLIENT_ID);
  return o?.length ? macString(o) : "*";
}

export type ReplyOption = [code: number, value: Uint8Array];

export const u32 = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, false);
  return b;
};
export const ips = (list: number[]) => {
  const b = new Uint8Array(list.length * 4);
  list.forEach((n, i) => new DataView(b.buffer).setUint32(i * 4, n >>> 0, false));
  return b;
};
export const text = (s: string) => new TextEncoder().encode(s);

/** A BOOTREPLY to `req` carrying `yiaddr` and the options in order (message type first). */
export function buildReply(
  req: DhcpRequest,
  type: number,
  yiaddr: number,
  serverId: number,
  options: ReplyOption[],
): Uint8Array {
  const opts: ReplyOption[] = [[OPT.MSG_TYPE, Uint8Array.of(type)], [OPT.SERVER_ID, u32(serverId)], ...options];
  let size = HEADER + 4 + 1;
  for (const [, value] of opts) size += 2 + Math.min(value.length, 255);
  const out = new Uint8Array(Math.max(size, MIN_REPLY));
  const v = new DataView(out.buffer);
  out[0] = 2; // BOOTREPLY
  out[1] = 1;
  out[2] = 6;
  v.setUint32(4, req.xid, false);
  v.setUint16(10, req.flags, false);
  if (type === MSG.ACK && yiaddr === 0) v.setUint32(12, req.ciaddr, false); // INFORM: ciaddr echoed
  v.setUint32(16, yiaddr >>> 0, false);
  v.setUint32(24, req.giaddr, false);
  out.set(req.chaddr, 28);
  v.setUint32(HEADER, COOKIE, false);
  let i = HEADER + 4;
  for (const [code, value] of opts) {
    const len = Math.min(value.length, 255);
    out[i] = code;
    out[i + 1] = len;
    out.set(value.subarray(0, len), i + 2);
    i += 2 + len;
  }
  out[i] = OPT.END;
  return out;
}

export function ipToNumber(s: string): number {
  const p = s.split(".").map(Number);
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
}

export function numberToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}
