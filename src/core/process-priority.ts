// misc.nice, as Pi-hole's FTL applies it at start (default -10): the thread that answers DNS and the API
// (and the DNS threads, which start later and inherit it) gets a core before the runtime's own helper
// threads (the collector's, the JIT's, the allocator's scavenger) and other work of its session. With
// autogroups on (sched_autogroup_enabled), another session's work shares the cores by group, whatever
// its threads' niceness. Linux keeps a niceness per thread, so this is done on the main thread before the
// services start their threads; the query writer lowers itself again (thread-priority.ts). With a day of
// 1.1M queries kept at 10k QPS on the shared 2-core machine, most of the main thread's stalls over 2 ms
// were waits for a core, not work of its own (bench/mix/tail.ts --lag, README.md's benchmarks).
import { getPriority, setPriority } from "node:os";

/** Pi-hole's value for "leave the priority as it is". */
const NICE_UNCHANGED = -999;

/** Sets the calling thread's niceness to `nice`; returns a warning for the log when the system refuses. */
export function applyNice(nice: number): string | null {
  if (nice === NICE_UNCHANGED) return null;
  const before = getPriority();
  if (before === nice) return null;
  try {
    setPriority(nice);
    return null;
  } catch (e) {
    // Node's and Bun's SystemError: the errno's name is in `info.code` (`code` is ERR_SYSTEM_ERROR)
    const err = e as { info?: { code?: string }; message: string };
    const code = err.info?.code ?? err.message;
    const why =
      code === "EACCES" || code === "EPERM"
        ? "not permitted (a lower value needs CAP_SYS_NICE or a nice limit that allows it: systemd's LimitNICE=, Docker's --ulimit nice=)"
        : code;
    return `Cannot set the process priority to ${nice} (misc.nice): ${why}; it stays at ${before}, so DNS answers may wait for a core while other programs keep this machine busy. misc.nice = -999 leaves the priority alone.`;
  }
}
