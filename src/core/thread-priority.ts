// Background threads (the query writer) must never slow the thread that answers DNS. nice 19 is not
// enough: on a busy 2-core machine the writer still took 65% of a core from the DNS thread and
// dnsperf (blocked QPS 83k, against 95k with SCHED_IDLE). A SCHED_IDLE thread runs only on a
// core nothing else wants, and the records simply wait a little longer.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { setPriority } from "node:os";

/** Linux's SCHED_IDLE policy (sched.h). */
const SCHED_IDLE = 5;

export type ThreadPriority = "idle" | "nice" | "normal";

/** Lowers the calling thread only (on Linux, pid 0 names the calling thread); the best the system allows. */
export function lowerThisThread(): ThreadPriority {
  let got: ThreadPriority = "normal";
  try {
    setPriority(19);
    got = "nice";
  } catch {
    // not permitted here
  }
  if (process.platform !== "linux") return got;
  try {
    const libc = dlopen("libc.so.6", {
      sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    try {
      const param = new Int32Array(1); // struct sched_param { int sched_priority = 0 }
      if (libc.symbols.sched_setscheduler(0, SCHED_IDLE, ptr(param)) === 0) got = "idle";
    } finally {
      libc.close();
    }
  } catch {
    // no glibc (musl, say) or no FFI: nice 19 it is
  }
  return got;
}
