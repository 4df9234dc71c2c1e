// How numbers, times and durations read on the page.
const nf = new Intl.NumberFormat();

export const num = (n: number | null | undefined): string => (n === null || n === undefined ? "–" : nf.format(n));
export const pct = (n: number): string => `${n.toFixed(n >= 10 || n === 0 ? 1 : 2)}%`;

export function dateTime(unix: number): string {
  const d = new Date(unix * 1000);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

export function duration(seconds: number): string {
  seconds = Math.max(0, Math.round(seconds));
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

export function bytes(kib: number): string {
  if (kib >= 1024 * 1024) return `${(kib / 1024 / 1024).toFixed(1)} GiB`;
  if (kib >= 1024) return `${(kib / 1024).toFixed(0)} MiB`;
  return `${kib} KiB`;
}

export const ago = (unix: number): string => (unix ? `${duration(Date.now() / 1000 - unix)} ago` : "never");

/** Unix seconds as the value of a datetime-local input (the browser's time zone); "" for none. */
export function toLocalInput(unix: number | string | undefined): string {
  if (!unix) return "";
  const d = new Date(Number(unix) * 1000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

/** A datetime-local input's value as unix seconds; 0 when it is empty or not a time. */
export const fromLocalInput = (value: string): number => Math.floor(new Date(value).getTime() / 1000) || 0;
