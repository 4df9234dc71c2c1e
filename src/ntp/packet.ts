// NTP packets (RFC 5905 §7.3): a client's request is checked strictly (48 bytes or more, version
// 1-4, mode 3), anything else gets no answer; the reply is server mode with the system clock's time.
const NTP_EPOCH_OFFSET = 2208988800; // seconds from 1900 to 1970
const MODE_CLIENT = 3;
const MODE_SERVER = 4;
const HEADER = 48;

export interface ServerState {
  leap: number;
  stratum: number;
  /** log2 seconds */
  precision: number;
  rootDelay: number;
  rootDispersion: number;
  refId: number;
  /** unix seconds (fractional) of the last synchronisation */
  refTime: number;
}

/** The request's version, or null when it is not a well-formed client request. */
export function clientVersion(data: Uint8Array): number | null {
  if (data.length < HEADER || data.length > 1024) return null;
  const version = (data[0]! >> 3) & 7;
  const mode = data[0]! & 7;
  if (mode !== MODE_CLIENT || version < 1 || version > 4) return null;
  // extension fields (NTPv4) come in 4-byte words of at least 16 bytes; a MAC is 20 or 24 bytes
  const rest = data.length - HEADER;
  if (rest !== 0 && (rest % 4 !== 0 || rest < 16)) return null;
  return version;
}

function writeTimestamp(v: DataView, at: number, unixSeconds: number) {
  const secs = Math.floor(unixSeconds);
  v.setUint32(at, (secs + NTP_EPOCH_OFFSET) >>> 0, false);
  v.setUint32(at + 4, Math.floor((unixSeconds - secs) * 2 ** 32) >>> 0, false);
}

const short = (seconds: number) => Math.min(0xffffffff, Math.round(seconds * 65536)) >>> 0;

/** The server's reply to `req`; `received` is when it came in (unix seconds), `now` reads the clock. */
export function serverReply(
  req: Uint8Array,
  version: number,
  s: ServerState,
  received: number,
  now: () => number,
): Uint8Array {
  const out = new Uint8Array(HEADER);
  const v = new DataView(out.buffer);
  out[0] = (s.leap << 6) | (version << 3) | MODE_SERVER;
  out[1] = s.stratum;
  out[2] = req[2]!; // poll: the client's
  v.setInt8(3, s.precision);
  v.setUint32(4, short(s.rootDelay), false);
  v.setUint32(8, short(s.rootDispersion), false);
  v.setUint32(12, s.refId >>> 0, false);
  if (s.refTime > 0) writeTimestamp(v, 16, s.refTime);
  out.set(req.subarray(40, 48), 24); // origin = the client's transmit timestamp
  writeTimestamp(v, 32, received);
  writeTimestamp(v, 40, now());
  return out;
}
