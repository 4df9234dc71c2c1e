// The 24 h window's memory budget. The window counts every query of the last 24 h in memory, and a
// network of mostly distinct names (20k QPS of them) grows it by megabytes a second: in a 256 MiB
// memory cgroup Moat was OOM-killed after ~20 s. So the history in memory (this window plus the
// 24 h log on tmpfs, whose pages count against the same limit) keeps to HISTORY_SHARE of the memory
// this process may use, and over it the window sheds its oldest queries, as the log does its own.

/** Of the memory this process may use (its cgroup's limit, else the machine's), what the history may take. */
export const HISTORY_SHARE = 0.4;
/** The window never goes below this, however small the machine: a few hours of a quiet home network. */
const MIN_WINDOW_BYTES = 16 * 1048576;

/**
 * What the window holds in memory, estimated from its sizes (measured with bun:jsc heapStats and RSS
 * after 300k queries: ~100 bytes a query with 500 names, ~350 with every name distinct): the ring
 * entry, the 10-minute slots and the client tallies per query, the key and its counters per name.
 */
const BYTES_PER_QUERY = 100;
const BYTES_PER_NAME = 250;

export function windowBytes(queries: number, names: number): number {
  return queries * BYTES_PER_QUERY + names * BYTES_PER_NAME;
}

/** The most queries of distinct names that fit in `bytes` (the import at start reads no more than these). */
export function queriesFitting(bytes: number): number {
  return Math.floor(bytes / (BYTES_PER_QUERY + BYTES_PER_NAME));
}

/** The window's budget: the history's share of `limitBytes`, less what the 24 h log may take. */
export function windowBudgetBytes(limitBytes: number, logBudgetBytes: number): number {
  return Math.max(MIN_WINDOW_BYTES, Math.floor(limitBytes * HISTORY_SHARE - logBudgetBytes));
}
