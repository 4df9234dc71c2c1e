// What the system clock knows about itself, from the kernel (adjtimex(2)): whether something (NTP,
// systemd-timesyncd, chrony) keeps it synchronised, a leap second pending, and its error bound.
import { dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

/** adjtimex's clock states (linux/timex.h) */
const TIME_INS = 1;
const TIME_DEL = 2;
const TIME_ERROR = 5;
/** struct timex: modes(int)+pad, offset, freq, maxerror (µs) at byte 24, on 64-bit Linux; 208 bytes */
const TIMEX_SIZE = 208;
const MAXERROR_AT = 24;

export interface ClockState {
  synchronised: boolean;
  /** NTP leap indicator: 0 none, 1 insert, 2 delete, 3 unsynchronised */
  leap: 0 | 1 | 2 | 3;
  /** the kernel's maximum error estimate, seconds */
  maxError: number;
}

let adjtimex: ((p: Pointer) => number) | null | undefined;

function load(): ((p: Pointer) => number) | null {
  if (adjtimex !== undefined) return adjtimex;
  try {
    const lib = dlopen("libc.so.6", { adjtimex: { args: [FFIType.ptr], returns: FFIType.i32 } });
    adjtimex = (p: Pointer) => lib.symbols.adjtimex(p);
  } catch {
    adjtimex = null; // no glibc: the clock counts as unsynchronised
  }
  return adjtimex;
}

/** Reads the state (modes = 0: nothing is changed). */
export function clockState(): ClockState {
  const fn = load();
  if (!fn || (process.arch !== "x64" && process.arch !== "arm64"))
    return { synchronised: false, leap: 3, maxError: 16 };
  const buf = new BigInt64Array(TIMEX_SIZE / 8);
  const state = fn(ptr(buf));
  const maxError = Number(new DataView(buf.buffer).getBigInt64(MAXERROR_AT, true)) / 1e6;
  if (state < 0 || state === TIME_ERROR) return { synchronised: false, leap: 3, maxError };
  return { synchronised: true, leap: state === TIME_INS ? 1 : state === TIME_DEL ? 2 : 0, maxError };
}
